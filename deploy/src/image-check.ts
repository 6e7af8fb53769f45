import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildServerImage } from "./build-image.js";
import { CheckFailed, check } from "./check.js";
import {
  type ContainerProcess,
  imageEnv,
  type MountedContainer,
  mountContainer,
  startInContainer,
} from "./container-run.js";
import { type ImageInfo, inspectImage } from "./engine.js";
import { serverPackageSets } from "./lockfile.js";
import { onPath } from "./process.js";
import { checkRegistry } from "./registry-check.js";
import { defaultNodeImage, LOCAL_TAG, revision, serverPackage } from "./repo.js";
import { checkBackupSidecar } from "./sidecar-check.js";
import { ensureBaseImage } from "./stand-in.js";

const SECRET = "image-test-secret-of-at-least-32-characters";

/**
 * `pnpm image:test`: builds the image from apps/server/Containerfile as it stands, against the default base
 * (its local stand-in where it cannot be pulled), then checks the image's settings, what it holds, and the
 * server it starts: POST /plants, a SIGTERM drain, the data volume across a restart; then pushes it to a
 * registry of its own and pulls it back by digest, and renders the manifests pinned to that digest. Skips, saying why,
 * where podman is missing.
 */
export async function checkImage(): Promise<number> {
  if (!onPath("podman")) {
    console.log(
      "image:test skipped: podman is not installed (apt-get install podman debootstrap); it builds and mounts the image",
    );
    return 0;
  }
  const started = Date.now();
  const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;
  await ensureBaseImage("podman", defaultNodeImage());
  console.log(`image: base ready after ${seconds()}`);
  await buildServerImage("podman");
  console.log(`image: ${LOCAL_TAG} built after ${seconds()}`);
  const info = inspectImage("podman", LOCAL_TAG);
  if (info === undefined) throw new Error(`${LOCAL_TAG} is not there after the build`);
  console.log(`image: ${LOCAL_TAG} is ${(info.Size / 1e6).toFixed(1)} MB`);
  try {
    checkSettings(info);
    const volumePath = dataVolume(info);
    const container = mountContainer(LOCAL_TAG);
    try {
      checkContents(info, container.root);
    } finally {
      container.remove();
    }
    await checkServer(info, volumePath);
    await checkRegistry(info);
  } catch (error) {
    if (error instanceof CheckFailed) {
      console.error(error.message);
      console.error(`image:test failed after ${seconds()}`);
      return 1;
    }
    throw error;
  }
  console.log(`image:test passed in ${seconds()}`);
  return 0;
}

/** The volume DATABASE_URL points into. */
function dataVolume(info: ImageInfo): string {
  const databaseUrl = imageEnv(info).DATABASE_URL ?? "";
  const volume = Object.keys(info.Config.Volumes ?? {}).find((path) => databaseUrl.startsWith(`${path}/`));
  check(
    volume,
    `DATABASE_URL (${databaseUrl}) is a file in a declared VOLUME (${Object.keys(info.Config.Volumes ?? {}).join(", ")})`,
  );
  return volume!;
}

function checkSettings(info: ImageInfo): void {
  const config = info.Config;
  const server = serverPackage();
  const [uid] = (config.User ?? "").split(":");
  check(
    uid !== undefined && /^\d+$/.test(uid) && uid !== "0",
    `runs as a non-root user, by number (USER ${config.User})`,
  );
  const start = server.scripts.start!.split(" ");
  const argv = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
  check(
    JSON.stringify(argv) === JSON.stringify(start),
    `ENTRYPOINT + CMD is the server's start script: ${argv.join(" ")}`,
    `start script: ${start.join(" ")}`,
  );
  const env = imageEnv(info);
  for (const [name, value] of Object.entries({ NODE_ENV: "production", MALLOC_ARENA_MAX: "2", HOST: "0.0.0.0" })) {
    check(env[name] === value, `ENV ${name}=${value}`, `found ${env[name]}`);
  }
  check(config.WorkingDir === "/app", `WORKDIR /app (the deployed folder), found ${config.WorkingDir}`);
  check(
    Object.keys(config.ExposedPorts ?? {}).includes(`${env.PORT}/tcp`),
    `EXPOSE ${env.PORT} (the PORT it listens on)`,
  );
  check(config.StopSignal === "SIGTERM", `STOPSIGNAL SIGTERM, found ${config.StopSignal}`);
  check(config.Healthcheck?.Test?.[0] === "CMD", `a HEALTHCHECK (${JSON.stringify(config.Healthcheck?.Test)})`);
  const labels = config.Labels ?? {};
  check(
    labels["org.opencontainers.image.version"] === server.version,
    `label version = the server's (${server.version})`,
  );
  check(
    labels["org.opencontainers.image.revision"] === revision(),
    `label revision = the commit built (${revision() || "empty: not a git checkout"})`,
  );
  check(labels["org.opencontainers.image.licenses"] === "MIT", "label licenses = MIT, the server's license");
  check(
    "org.opencontainers.image.source" in labels,
    `label source (${labels["org.opencontainers.image.source"] || "empty: no repository or git origin here"})`,
  );
  check(labels["org.cyclonedx.bom.path"], `label org.cyclonedx.bom.path = ${labels["org.cyclonedx.bom.path"]}`);
}

/** What a container of the image holds: the deployed server, its SBOM, and nothing a build leaves behind. */
function checkContents(info: ImageInfo, root: string): void {
  const server = serverPackage();
  const app = join(root, "app");
  check(
    existsSync(join(app, "dist", "main.js")) && !existsSync(join(app, "src")) && !existsSync(join(app, "test")),
    "/app holds dist/, no src/ or test/",
  );
  const appStat = statSync(app);
  check(appStat.uid === 0 && (appStat.mode & 0o022) === 0, "/app belongs to root and only root may write to it");

  // node_modules/.pnpm/<name>@<version>[_<peers>], scope slash as "+"; workspace packages are file+<path>.
  const installed = readdirSync(join(app, "node_modules", ".pnpm"))
    .filter((entry) => entry.includes("@"))
    .map((entry) => {
      const at = entry.indexOf("@", 1);
      return `${entry.slice(0, at).replace("+", "/")}@${entry.slice(at + 1).replace(/_.*$/, "")}`;
    });
  const fromRegistry = installed.filter((entry) => !/@file\+/.test(entry));
  const names = new Set(installed.map((entry) => entry.slice(0, entry.indexOf("@", 1))));
  const runtime = Object.keys(server.dependencies);
  const missing = runtime.filter((name) => !names.has(name));
  check(
    missing.length === 0,
    `every production dependency of the server is installed (${runtime.length})`,
    `missing: ${missing.join(", ")}`,
  );
  const { production, devOnly } = serverPackageSets();
  const outside = fromRegistry.filter((entry) => !production.has(entry));
  check(
    outside.length === 0,
    `every installed package (${installed.length}) is in the server's production tree in pnpm-lock.yaml`,
    `outside it: ${outside.join(", ")}`,
  );
  const presentDevOnly = installed.filter((entry) => devOnly.has(entry));
  check(
    presentDevOnly.length === 0,
    `none of the ${devOnly.size} dev-only packages (the workspaces' devDependencies production does not need)`,
    `found: ${presentDevOnly.join(", ")}`,
  );

  const compilers = findCompilers(root);
  check(
    compilers.length === 0,
    "no compiler or build tool (gcc, g++, cc, c++, cpp, clang, make, ld, as, python3, cc1)",
    compilers.join("\n"),
  );
  const caches = findCaches(root);
  check(
    caches.length === 0,
    "no package-manager cache (npm, pnpm store, yarn, apt archives and lists)",
    caches.join("\n"),
  );

  const sbomPath = info.Config.Labels?.["org.cyclonedx.bom.path"] ?? "";
  const sbom = JSON.parse(readFileSync(join(root, sbomPath), "utf8")) as {
    bomFormat: string;
    specVersion: string;
    components?: Component[];
  };
  check(sbom.bomFormat === "CycloneDX", `the SBOM at ${sbomPath} is CycloneDX ${sbom.specVersion} JSON`);
  const listed = new Set(
    flatten(sbom.components ?? []).map(
      (component) => `${component.group ? `${component.group}/` : ""}${component.name}@${component.version}`,
    ),
  );
  const unlisted = fromRegistry.filter((entry) => !listed.has(entry));
  check(
    unlisted.length === 0,
    `the SBOM lists every installed package (${listed.size} components)`,
    `unlisted: ${unlisted.join(", ")}`,
  );
}

interface Component {
  group?: string;
  name: string;
  version: string;
  components?: Component[];
}

function flatten(components: Component[]): Component[] {
  return components.flatMap((component) => [component, ...flatten(component.components ?? [])]);
}

const COMPILER =
  /^(gcc|g\+\+|cc|c\+\+|cpp|clang|clang\+\+|make|ld|as|python3?)(-[\d.]+)?$|^x86_64-linux-gnu-(gcc|g\+\+|cpp|ld|as)(-[\d.]+)?$/;

function findCompilers(root: string): string[] {
  const found: string[] = [];
  for (const dir of ["bin", "sbin", "usr/bin", "usr/sbin", "usr/local/bin", "usr/local/sbin"]) {
    for (const entry of safeList(join(root, dir))) if (COMPILER.test(entry)) found.push(`/${dir}/${entry}`);
  }
  for (const version of safeList(join(root, "usr/lib/gcc/x86_64-linux-gnu"))) {
    for (const entry of safeList(join(root, "usr/lib/gcc/x86_64-linux-gnu", version))) {
      if (/^cc1/.test(entry)) found.push(`/usr/lib/gcc/x86_64-linux-gnu/${version}/${entry}`);
    }
  }
  return found;
}

function findCaches(root: string): string[] {
  const found: string[] = [];
  for (const home of ["root", ...safeList(join(root, "home")).map((name) => `home/${name}`)]) {
    for (const cache of [".npm", ".cache", ".local/share/pnpm", ".pnpm-store", ".yarn", ".node-gyp"]) {
      if (existsSync(join(root, home, cache))) found.push(`/${home}/${cache}`);
    }
  }
  for (const dir of [
    "usr/local/share/.cache",
    "app/.pnpm-store",
    "app/node_modules/.cache",
    "tmp/node-compile-cache",
  ]) {
    if (existsSync(join(root, dir))) found.push(`/${dir}`);
  }
  for (const entry of safeList(join(root, "var/cache/apt/archives")))
    if (entry.endsWith(".deb")) found.push(`/var/cache/apt/archives/${entry}`);
  for (const entry of safeList(join(root, "var/lib/apt/lists")))
    if (entry !== "lock" && entry !== "partial" && entry !== "auxfiles") found.push(`/var/lib/apt/lists/${entry}`);
  return found;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Starts the server from a fresh container with `volume` as its data volume and a read-only root file system
 * (as the Kubernetes manifests run it), and waits for it to listen.
 */
async function startServer(info: ImageInfo, container: MountedContainer, volume: { host: string; path: string }) {
  // As `docker run -e`: the key, loopback on a free port (the host's network is shared here), a short drain.
  const env = imageEnv(info, { JWT_SECRET: SECRET, HOST: "127.0.0.1", PORT: "0", SHUTDOWN_DELAY_MS: "1000" });
  const server = startInContainer(container, info, { env, volume, readOnlyRoot: true });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const match = /"url":"(http:\/\/[^"]+)"/.exec(server.stdout());
    if (match?.[1]) return { server, baseUrl: match[1], env };
    if (server.child.exitCode !== null || Date.now() > deadline) {
      server.child.kill("SIGKILL");
      throw new CheckFailed(`not ok  the server starts\n${server.stdout()}\n${server.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function postPlant(baseUrl: string, body: string, token?: string): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return fetch(`${baseUrl}/plants`, { method: "POST", headers, body });
}

/** Waits up to 5 s for the process to print `pattern` (the server logs each step of its shutdown). */
async function waitForOutput(process: ContainerProcess, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!pattern.test(process.stdout())) {
    if (Date.now() > deadline)
      throw new CheckFailed(`not ok  the server logs ${pattern}\n${process.stdout()}\n${process.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function output(process: ContainerProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const code = await process.exited;
  return { code, stdout: process.stdout(), stderr: process.stderr() };
}

async function checkServer(info: ImageInfo, volumePath: string): Promise<void> {
  const volume = mkdtempSync(join(tmpdir(), "plant-store-image-volume-"));
  const containers: MountedContainer[] = [];
  const running: ContainerProcess[] = [];
  try {
    // A new named volume starts as a copy of the image's directory: its owner, here.
    const first = mountContainer(LOCAL_TAG);
    containers.push(first);
    const owner = statSync(join(first.root, volumePath));
    chownSync(volume, owner.uid, owner.gid);
    const { server, baseUrl, env } = await startServer(info, first, { host: volume, path: volumePath });
    running.push(server);
    const pid = server.child.pid!;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    check(
      new RegExp(`^Uid:\\s+${info.Config.User?.split(":")[0]}\\s`, "m").test(status),
      `the server process runs as uid ${info.Config.User?.split(":")[0]}`,
    );
    check(
      cmdline.includes("--max-semi-space-size=16") && cmdline.includes("--heap-growing-percent=50"),
      `with the Node flags: ${cmdline.join(" ")}`,
    );
    check(environ.includes("MALLOC_ARENA_MAX=2"), "with MALLOC_ARENA_MAX=2 in its environment");
    // As the process sees its mounts: mount point (5th field) and options (6th); the last of several on one
    // path is the one on top.
    const mounts = readFileSync(`/proc/${pid}/mountinfo`, "utf8")
      .split("\n")
      .map((line) => line.split(" "));
    const options = (path: string) =>
      mounts
        .filter((fields) => fields[4] === path)
        .at(-1)?.[5]
        ?.split(",") ?? [];
    check(
      options("/").includes("ro") && options(volumePath).includes("rw"),
      `on a read-only root file system, ${volumePath} writable`,
    );
    check((await fetch(`${baseUrl}/readyz`)).status === 200, "GET /readyz answers 200");

    // The HEALTHCHECK runs in the container beside the server, without the image's entrypoint.
    const withoutEntrypoint = { ...info, Config: { ...info.Config, Entrypoint: [] } };
    // PORT as the server sees it: the port it listens on (here a free one it chose, PORT=0).
    const listening = { ...env, PORT: new URL(baseUrl).port };
    const command = info.Config.Healthcheck!.Test!.slice(1);
    const healthcheck = await output(startInContainer(first, withoutEntrypoint, { env: listening, command }));
    check(healthcheck.code === 0, "the HEALTHCHECK command exits 0 while the server runs", healthcheck.stderr);

    const minted = await output(startInContainer(first, info, { env, command: ["dist/cli/main.js", "issue-token"] }));
    const token = minted.stdout.trim();
    check(
      minted.code === 0 && token.split(".").length === 3,
      "the image mints a token: dist/cli/main.js issue-token as its command",
      minted.stderr,
    );

    const created = await postPlant(baseUrl, '{"id": 9007199254740993, "name": "Contained Monstera"}', token);
    check(created.status === 200, `POST /plants with a valid token answers 200 ${await created.text()}`);
    const anonymous = await postPlant(baseUrl, '{"id": 2, "name": "Nobody"}');
    check(anonymous.status === 401, `POST /plants without a token answers 401 ${await anonymous.text()}`);
    const conflict = await postPlant(baseUrl, '{"id": 9007199254740993, "name": "Another plant"}', token);
    check(conflict.status === 409, `POST /plants reusing an id with another body answers 409 ${await conflict.text()}`);
    await checkBackupSidecar(info, { host: volume, path: volumePath }, 1);

    // The sidecar's command, here once into the volume, while the server runs: as the image's user, root read-only.
    const backedUp = await output(
      startInContainer(first, info, {
        env,
        command: ["dist/cli/main.js", "backup", `${volumePath}/snapshot.db`],
        volume: { host: volume, path: volumePath },
        readOnlyRoot: true,
      }),
    );
    check(
      backedUp.code === 0 && /^backed up 1 plants, /.test(backedUp.stdout),
      "dist/cli/main.js backup snapshots the store while the server runs",
      `${backedUp.stdout}${backedUp.stderr}`,
    );

    server.child.kill("SIGTERM");
    await waitForOutput(server, /readiness is now 503/);
    const draining = await fetch(`${baseUrl}/readyz`);
    check(draining.status === 503, "after SIGTERM, GET /readyz answers 503 while the server drains");
    const late = await postPlant(baseUrl, '{"id": 3, "name": "Late Fern"}', token);
    check(
      late.status === 200 && late.headers.get("connection") === "close",
      "a POST /plants during the drain is answered 200 with Connection: close",
    );
    const stopped = await output(server);
    check(
      stopped.code === 0 && /"msg":"stopped"/.test(stopped.stdout),
      "on SIGTERM the server drains, logs stopped and exits 0",
      `exit ${stopped.code}\n${stopped.stderr}`,
    );
    first.remove();
    containers.shift();
    check(readdirSync(volume).includes("plants.db"), `the store is in the volume: ${readdirSync(volume).join(", ")}`);

    const second = mountContainer(LOCAL_TAG);
    containers.push(second);
    const restarted = await startServer(info, second, { host: volume, path: volumePath });
    running.push(restarted.server);
    const replay = await postPlant(restarted.baseUrl, '{"id": 9007199254740993, "name": "Contained Monstera"}', token);
    const other = await postPlant(restarted.baseUrl, '{"id": 3, "name": "Another Fern"}', token);
    check(
      replay.status === 200 && other.status === 409,
      "a new container on the same volume still has both plants (replay 200, conflict 409)",
    );
    restarted.server.child.kill("SIGTERM");
    const again = await output(restarted.server);
    check(again.code === 0, "and stops on SIGTERM with exit 0", again.stderr);

    // The volume's store lost: the snapshot restored by the image's user, then served.
    for (const name of readdirSync(volume)) if (name.startsWith("plants.db")) rmSync(join(volume, name));
    const restored = await output(
      startInContainer(second, info, {
        env,
        command: ["dist/cli/main.js", "restore", `${volumePath}/snapshot.db`],
        volume: { host: volume, path: volumePath },
        readOnlyRoot: true,
      }),
    );
    const restoredOwner = statSync(join(volume, "plants.db"));
    check(
      restored.code === 0 && /^restored 1 plants /.test(restored.stdout) && restoredOwner.uid === owner.uid,
      "dist/cli/main.js restore puts the snapshot in place as the store, owned by the image's user",
      `${restored.stdout}${restored.stderr}`,
    );
    const fromSnapshot = await startServer(info, second, { host: volume, path: volumePath });
    running.push(fromSnapshot.server);
    const kept = await postPlant(fromSnapshot.baseUrl, '{"id": 9007199254740993, "name": "Contained Monstera"}', token);
    const afterSnapshot = await postPlant(fromSnapshot.baseUrl, '{"id": 3, "name": "Another Fern"}', token);
    check(
      kept.status === 200 && afterSnapshot.status === 200,
      "the server on the restored store has the plant from before the snapshot, not the one after it",
    );
    fromSnapshot.server.child.kill("SIGTERM");
    check((await output(fromSnapshot.server)).code === 0, "and stops on SIGTERM with exit 0");
  } finally {
    for (const process of running) if (process.child.exitCode === null) process.child.kill("SIGKILL");
    await Promise.all(running.map((process) => process.exited));
    for (const container of containers) container.remove();
    rmSync(volume, { recursive: true, force: true });
  }
}
