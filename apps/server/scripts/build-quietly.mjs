// The build that the operator commands and `start` run first from a checkout (the root's scripts and this
// package's): turbo builds the server and the workspaces it imports when their sources changed, and the command's
// own output is all an operator's script reads. turbo's banner and summary are held back, and printed on stderr
// only when the build fails; the command then does not run, and the exit is 1, never 2, which some commands use
// for an answer (an absent id, two stores that differ).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, dirname } from "node:path";
import { fileURLToPath } from "node:url";

// The deployed artifact (`pnpm deploy:server`, the image) ships dist without sources: there is nothing to build.
if (!existsSync(new URL("../src", import.meta.url))) process.exit(0);

const root = fileURLToPath(new URL("../../../", import.meta.url));
const turbo = `${root}node_modules/.bin/turbo`;

// turbo runs the package manager by name: the pnpm that runs this script comes first, wherever it is installed.
const pnpm = process.env.npm_execpath;
// Built when sources changed, never forced: a forced build (TURBO_FORCE, which CI sets) empties each dist folder
// before writing it again, under any process running from it meanwhile (CI's other test suites).
const { TURBO_FORCE: _forced, ...inherited } = process.env;
const env = pnpm ? { ...inherited, PATH: `${dirname(pnpm)}${delimiter}${inherited.PATH ?? ""}` } : inherited;

const build = spawnSync(turbo, ["run", "build", "--filter=@plant-store/server...", "--output-logs=errors-only"], {
  cwd: root,
  env,
  stdio: ["ignore", "pipe", "pipe"],
  encoding: "utf8",
  // A failing build's output in full, however long the compiler's list of errors.
  maxBuffer: 256 * 1024 * 1024,
});
if (build.error !== undefined) {
  const reason =
    build.error.code === "ENOENT" ? `${turbo} is missing: run pnpm install at ${root}` : build.error.message;
  process.stderr.write(`plant-store: the server could not be built: ${reason}\n`);
  process.exit(1);
}
if (build.signal !== null) {
  // Stopped (Ctrl-C reaches turbo too): stop the same way, so the shell runs nothing after.
  process.kill(process.pid, build.signal);
  process.exit(1);
}
if (build.status !== 0) {
  process.stderr.write(`${build.stdout}${build.stderr}`);
  process.stderr.write("plant-store: the server's build failed (turbo's output above), so the command did not run\n");
  process.exit(1);
}
