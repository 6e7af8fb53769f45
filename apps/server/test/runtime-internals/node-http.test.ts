import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startServerWithToken } from "../support/server-process.js";

const UNDICI = "NativeModule internal/deps/undici/undici";
const NODE_MAJOR = Number(process.versions.node.split(".")[0]);

/** Whether an ES import of `specifier`, alone in a fresh Node, loads undici. */
function esImportLoadsUndici(specifier: string): boolean {
  const script = `import ${JSON.stringify(specifier)}; console.log(process.moduleLoadList.includes(${JSON.stringify(UNDICI)}));`;
  const printed = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return printed.trim() === "true";
}

// The trick in src/runtime-internals/node-http.ts: node:http taken with process.getBuiltinModule, because an
// ES import of it loads undici on Node 24.
describe("node:http without undici", () => {
  it("is needed on this Node: an ES import of node:http loads undici from Node 24 on, not before", () => {
    // If this fails on a newer Node, an ES import no longer loads undici and runtime-internals/node-http.ts can go.
    expect(esImportLoadsUndici("node:http")).toBe(NODE_MAJOR >= 24);
    expect(esImportLoadsUndici("node:net")).toBe(false);
  });

  it("keeps undici out of every thread of the built server, through requests and shutdown", async () => {
    const server = await startServerWithToken(
      {
        JWT_SECRET: "undici-test-secret-of-at-least-32-characters",
        // fetch then keeps no idle connection for the stop to wait out.
        KEEP_ALIVE_TIMEOUT_MS: "1000",
        NODE_OPTIONS: `--import ${new URL("../support/report-undici.mjs", import.meta.url).href}`,
      },
      "undici-test",
    );
    const created = await fetch(`${server.baseUrl}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: JSON.stringify({ id: 1, name: "Monstera" }),
    });
    const refused = await fetch(`${server.baseUrl}/plants`, { method: "POST", body: "{}" });
    await server.stop();

    expect([created.status, refused.status]).toEqual([200, 401]);
    const reports = server.stderr().match(/^undici loaded: .*$/gm) ?? [];
    expect(reports.length).toBeGreaterThan(0);
    expect(new Set(reports)).toEqual(new Set(["undici loaded: false"]));
  });
});
