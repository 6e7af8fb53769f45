import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseVariant } from "../src/options.js";
import { startServer } from "../src/servers.js";

describe("--variant", () => {
  it("reads another build, extra environment or extra Node flags", () => {
    expect(parseVariant("before=/tmp/old/dist/main.js")).toEqual({ label: "before", main: "/tmp/old/dist/main.js" });
    expect(parseVariant("traced=OTEL_EXPORTER_OTLP_ENDPOINT=$OTLP_SINK,OTEL_TRACES_SAMPLER=always_on")).toEqual({
      label: "traced",
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "$OTLP_SINK", OTEL_TRACES_SAMPLER: "always_on" },
    });
    expect(parseVariant("semi12=--max-semi-space-size=12,--no-maglev")).toEqual({
      label: "semi12",
      nodeArgs: ["--max-semi-space-size=12", "--no-maglev"],
    });
    expect(() => parseVariant("=--no-maglev")).toThrow(/label=--flag/);
  });

  describe("with Node flags", () => {
    const dir = mkdtempSync(join(tmpdir(), "plant-store-bench-variant-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("starts the server with them after the deployed flags, so a V8 flag given again wins", async () => {
      const { nodeArgs } = parseVariant("semi12=--max-semi-space-size=12");
      const server = await startServer({
        key: "plant-store",
        pin: [],
        dir,
        secret: "variant-test-secret-of-32-bytes!",
        nodeArgs,
      });
      try {
        const commandLine = readFileSync(`/proc/${server.pid}/cmdline`, "utf8").split("\0");
        const deployed = commandLine.indexOf("--max-semi-space-size=16");
        expect(deployed).toBeGreaterThan(0);
        expect(commandLine.indexOf("--max-semi-space-size=12")).toBeGreaterThan(deployed);
      } finally {
        await server.stop();
      }
    }, 30_000);
  });
});
