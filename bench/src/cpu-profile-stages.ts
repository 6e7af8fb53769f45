/** A V8 CPU profile as `node --cpu-prof` writes it. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * The stages of a request, each recognised by the files its code lives in (the server's folders and the
 * libraries each stage uses). A sample counts for the first stage found walking from the running function
 * out to its callers, so a regex run by zod counts as validation and a JSON.stringify run by pino as logging.
 * The server's own folders are named in the rules: keep them in step with apps/server/src's layout. The tuned
 * Fastify peer is profiled with the same rules, so its libraries (Fastify's body parser, ajv, its router) and its
 * own file are named too; neither server loads the other's.
 */
export const STAGE_RULES: readonly (readonly [stage: string, file: RegExp])[] = [
  [
    "log",
    /\/(pino|sonic-boom|thread-stream|pino-std-serializers)\/|\/logging\/|\/request-log|\/logger\.js|turn-batched/,
  ],
  ["metrics", /\/prom-client\/|metrics/],
  ["auth", /\/(jsonwebtoken|jws|jwa|jwks-rsa|express-rate-limit)\/|\/auth\//],
  [
    "parse (body)",
    /\/(lossless-json|raw-body|content-type|iconv-lite|secure-json-parse)\/|json-body|\/wire\/|content-type-parser/,
  ],
  ["validate", /\/zod\/|\/@ts-rest\/|validation|\/(ajv|@fastify\/ajv-compiler|fast-uri)\//],
  ["store", /\/store\/|\/(kysely|pg|pg-pool)\//],
  ["headers (helmet, CORS)", /\/(helmet|cors)\/|security-headers|headers-in-head|cors-allowlist/],
  ["tracing", /\/@opentelemetry\/|\/tracing\//],
  // The HTTP share apart from the frameworks, so what Express (or the peer's Fastify) costs shows apart from the platform.
  ["HTTP: node:http and the socket", /^node:(_http|http|net|stream|internal\/(http|stream|streams|net))/],
  [
    "HTTP: Express and its router",
    /\/(express|router|finalhandler|send|on-finished|statuses|mime-types|qs|body-parser|type-is)\//,
  ],
  [
    "HTTP: Fastify and its router",
    /\/(fastify|@fastify\/[^/]+|find-my-way|avvio|light-my-request|toad-cache|fast-querystring|fast-json-stringify|rfdc)\//,
  ],
  ["the server's own code (routes, domain, errors, edge, runtime-internals)", /\/apps\/server\/dist\//],
  // The peer keeps its SQLite commit, its hooks and its route in one file; nearly all of its time there is the commit.
  ["the tuned peer's own code (its SQLite commit, hooks, route)", /\/baselines\/fastify-tuned\.js$/],
];
const GC = "garbage collection";
const OTHER = "other (event loop, timers, Node internals)";

/** Self time per stage in microseconds, and the time the thread was idle. */
export function stageTimes(profile: CpuProfile): { stages: Map<string, number>; idleMicros: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stageOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = stageOf.get(id);
    if (known !== undefined) return known;
    const { functionName, url } = byId.get(id)!.callFrame;
    let stage: string | undefined;
    if (functionName === "(garbage collector)") stage = GC;
    else if (functionName === "(idle)") stage = "idle";
    else stage = STAGE_RULES.find(([, file]) => file.test(url))?.[0];
    if (stage === undefined) {
      const up = parent.get(id);
      stage = up === undefined ? OTHER : classify(up);
    }
    stageOf.set(id, stage);
    return stage;
  };
  const stages = new Map<string, number>();
  let idleMicros = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    const stage = classify(id);
    if (stage === "idle") idleMicros += micros;
    else stages.set(stage, (stages.get(stage) ?? 0) + micros);
  });
  return { stages, idleMicros };
}

export const SQLITE_WRITER = "the SQLite writer";

/**
 * Which of the server's worker threads a profile is, by the thread's own entry file among its frames: the
 * SQLite writer serves every request, the migration thread ends once start-up's migration is done.
 */
export function workerThreadRole(profile: CpuProfile): string {
  const urls = profile.nodes.map((node) => node.callFrame.url);
  if (urls.some((url) => url.endsWith("/sqlite-writer-thread.js"))) return SQLITE_WRITER;
  if (urls.some((url) => url.endsWith("/sqlite-migration-thread.js"))) return "the SQLite migration, at start-up only";
  return "a worker thread";
}
