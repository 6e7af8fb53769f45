import { describe, expect, it } from "vitest";
import { type CpuProfile, stageTimes, workerThreadRole } from "../src/cpu-profile-stages.js";

const frame = (functionName: string, url = "") => ({ functionName, url });

// root -> express handler -> zod parse -> (regexp builtin); express handler -> node:http end; root -> pino write;
// root -> the server's route; root -> (idle); root -> (gc)
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 5, 6, 7, 9] },
    { id: 2, callFrame: frame("handle", "file:///app/node_modules/express/lib/router.js"), children: [3, 8] },
    { id: 3, callFrame: frame("parse", "file:///app/node_modules/zod/lib/types.js"), children: [4] },
    { id: 4, callFrame: frame("exec") },
    { id: 5, callFrame: frame("write", "file:///app/node_modules/pino/lib/proto.js") },
    { id: 6, callFrame: frame("(idle)") },
    { id: 7, callFrame: frame("(garbage collector)") },
    { id: 8, callFrame: frame("end", "node:_http_outgoing") },
    { id: 9, callFrame: frame("create", "file:///app/apps/server/dist/routes/plants-routes.js") },
  ],
  samples: [4, 4, 2, 5, 6, 7, 8, 9],
  timeDeltas: [10, 10, 5, 7, 100, 3, 4, 6],
};

describe("CPU profile stages", () => {
  it("counts each sample for the innermost stage on its stack, and idle time apart", () => {
    const { stages, idleMicros } = stageTimes(profile);
    expect(Object.fromEntries(stages)).toEqual({
      validate: 20,
      "HTTP: Express and its router": 5,
      "HTTP: node:http and the socket": 4,
      "the server's own code (routes, domain, errors, edge, runtime-internals)": 6,
      log: 7,
      "garbage collection": 3,
    });
    expect(idleMicros).toBe(100);
  });

  it("names the tuned Fastify peer's stages with the same rules: its body parser, ajv, its router and its own file", () => {
    const peer: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame("(root)"), children: [2, 3, 4, 5] },
        { id: 2, callFrame: frame("parse", "file:///app/node_modules/secure-json-parse/index.js") },
        { id: 3, callFrame: frame("validate10", "file:///app/node_modules/ajv/dist/compile/index.js") },
        { id: 4, callFrame: frame("find", "file:///app/node_modules/find-my-way/index.js") },
        { id: 5, callFrame: frame("writeBatch", "file:///app/bench/dist/baselines/fastify-tuned.js"), children: [6] },
        { id: 6, callFrame: frame("exec") },
      ],
      samples: [2, 3, 4, 6, 6],
      timeDeltas: [1, 2, 3, 4, 5],
    };
    expect(Object.fromEntries(stageTimes(peer).stages)).toEqual({
      "parse (body)": 1,
      validate: 2,
      "HTTP: Fastify and its router": 3,
      "the tuned peer's own code (its SQLite commit, hooks, route)": 9,
    });
  });

  it("names a worker thread by its entry file: the SQLite writer, or the migration that ends after start-up", () => {
    const thread = (file: string): CpuProfile => ({
      nodes: [
        { id: 1, callFrame: frame("(root)"), children: [2] },
        { id: 2, callFrame: frame("", `file:///app/apps/server/dist/store/sqlite/${file}`) },
      ],
      samples: [2],
      timeDeltas: [1],
    });
    expect(workerThreadRole(thread("sqlite-writer-thread.js"))).toBe("the SQLite writer");
    expect(workerThreadRole(thread("sqlite-migration-thread.js"))).toBe("the SQLite migration, at start-up only");
    expect(workerThreadRole(thread("something-else.js"))).toBe("a worker thread");
  });
});
