import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onPath } from "./process.js";

/** A registry (Debian's docker-registry, the distribution project's) serving on 127.0.0.1 from a scratch folder. */
export interface LocalRegistry {
  /** host:port, the domain of the references pushed to it. */
  host: string;
  log: () => string;
  stop: () => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Starts `docker-registry serve` on a free loopback port with its storage in a new temporary folder. */
export async function startRegistry(): Promise<LocalRegistry> {
  if (!onPath("docker-registry")) throw new Error("docker-registry is not installed (apt-get install docker-registry)");
  const dir = mkdtempSync(join(tmpdir(), "plant-store-registry-"));
  // A port found free can be taken before the registry binds it: try another then.
  for (let attempt = 1; ; attempt++) {
    const host = `127.0.0.1:${await freePort()}`;
    const config = join(dir, "config.yml");
    const lines = [
      "version: 0.1",
      "log:",
      "  level: warn",
      "storage:",
      "  filesystem:",
      `    rootdirectory: ${join(dir, "storage")}`,
    ];
    writeFileSync(config, [...lines, "http:", `  addr: ${host}`, ""].join("\n"));
    let output = "";
    const child = spawn("docker-registry", ["serve", config], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const stopChild = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    };
    if (await answers(host, child)) {
      const stop = async () => {
        await stopChild();
        rmSync(dir, { recursive: true, force: true });
      };
      return { host, log: () => output, stop };
    }
    await stopChild();
    if (attempt === 3 || !/address already in use/.test(output)) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`docker-registry did not start on ${host}: ${output.trim().split("\n").at(-1) || "no output"}`);
    }
  }
}

/** Waits up to 10 s for GET /v2/ to answer 200; false when the registry exits or does not answer. */
async function answers(host: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const status = await fetch(`http://${host}/v2/`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
