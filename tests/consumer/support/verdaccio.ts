import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";

const verdaccioBin = join(dirname(createRequire(import.meta.url).resolve("verdaccio/package.json")), "bin/verdaccio");

export interface Registry {
  url: string;
  /** An auth token for a user registered on this registry, for .npmrc. */
  token: string;
  /** The registry's JSON for a package (its packument), or undefined for a 404. */
  packument(name: string): Promise<Record<string, unknown> | undefined>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts a real Verdaccio registry on 127.0.0.1 with its storage, config and users in `folder`. It has no
 * uplink: it serves only what is published to it, so nothing can fall through to the public registry.
 */
export async function startVerdaccio(folder: string): Promise<Registry> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(folder, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${join(folder, "storage")}`,
      "auth:",
      "  htpasswd:",
      `    file: ${join(folder, "htpasswd")}`,
      "    max_users: 1",
      "uplinks: {}",
      "packages:",
      '  "**":',
      "    access: $all",
      "    publish: $authenticated",
      "web:",
      "  enable: false",
      "log: { type: stdout, format: json, level: warn }",
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(
    process.execPath,
    [verdaccioBin, "--config", config, "--listen", `127.0.0.1:${port}`],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", HOME: folder },
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };

  try {
    // Ready when it answers its ping; give up after 30 s.
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`verdaccio exited at start:\n${output}`);
      const ok = await fetch(`${url}-/ping`).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`verdaccio did not answer within 30 s:\n${output}`);
      // Polling a ping is the readiness check: with warn-level logs it prints nothing when it is up.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const res = await fetch(`${url}-/user/org.couchdb.user:releaser`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "releaser", password: "release-test-password", email: "releaser@example.test" }),
    });
    if (!res.ok) throw new Error(`could not register a user: ${res.status} ${await res.text()}`);
    const { token } = (await res.json()) as { token: string };
    return {
      url,
      token,
      packument: async (name) => {
        const answer = await fetch(`${url}${name.replace("/", "%2f")}`);
        return answer.status === 404 ? undefined : ((await answer.json()) as Record<string, unknown>);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
