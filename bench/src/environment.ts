import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, release, totalmem } from "node:os";
import { DatabaseSync } from "node:sqlite";
import { wrkVersion } from "./wrk-load.js";

const require = createRequire(import.meta.url);
const serverRequire = createRequire(require.resolve("@plant-store/server/package.json"));

/** The SQLite library node:sqlite is built with. */
function sqliteVersion(): string {
  const db = new DatabaseSync(":memory:");
  try {
    return String(db.prepare("SELECT sqlite_version() AS version").get()?.version);
  } finally {
    db.close();
  }
}

function versionOf(resolveFrom: NodeRequire, name: string): string {
  const entry = resolveFrom.resolve(name);
  const packageJson = entry.slice(0, entry.lastIndexOf(`/node_modules/${name}/`) + `/node_modules/${name}/`.length);
  return (JSON.parse(readFileSync(`${packageJson}package.json`, "utf8")) as { version: string }).version;
}

function filesystemOf(dir: string): string {
  try {
    return execFileSync("stat", ["-f", "-c", "%T", dir], { encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

function databaseFilesystem(type: string): string {
  return type === "tmpfs" ? "tmpfs (fsync costs nothing here: durable-write figures are flattering)" : type;
}

/** What a reader needs to judge the figures: the machine, the software versions, where files were written. */
export function describeEnvironment(dataDir: string): Record<string, string> {
  const cpu = cpus();
  return {
    CPU: `${cpu[0]?.model ?? "unknown"} x ${cpu.length}`,
    Memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
    Kernel: `Linux ${release()}`,
    Node: process.version,
    "Load generator": wrkVersion() ?? "wrk missing",
    "Express (server / floor)": `${versionOf(serverRequire, "express")} / ${versionOf(require, "express")}`,
    Fastify: versionOf(require, "fastify"),
    SQLite: `node:sqlite ${sqliteVersion()} (server and peers)`,
    "Database files": databaseFilesystem(filesystemOf(dataDir)),
  };
}
