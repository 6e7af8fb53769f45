import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { SqliteThreadSettings } from "./thread-messages.js";

/** The thread entries in this folder. */
export type SqliteThreadEntry = "sqlite-writer-thread" | "sqlite-migration-thread";

// Built, a thread runs the compiled entry (.js) next to this file. Under vitest, this file is src/…/*.ts, which
// vitest transforms itself; a worker thread is a plain Node thread, and Node's own type stripping does not map the
// entries' "./x.js" imports to their .ts files. So from src/ a thread runs a
// two-line script instead: register tsx (a dev dependency that dist/ and the deploy artifact never reach), then
// require the .ts entry. tsx's require hook works inside the thread (its ESM hooks would start a loader thread
// per worker, 5x slower to start); the entries use no ESM-only feature (import.meta, top-level await), so they
// run the same either way.
const runningFromSource = import.meta.url.endsWith(".ts");

function newThread(entry: SqliteThreadEntry, workerData: SqliteThreadSettings): Worker {
  // The name is the OS thread's name too (first 15 characters), so `top -H` and /proc/<pid>/task tell the writer's
  // CPU apart from the main thread's.
  const options = { workerData, name: entry };
  if (!runningFromSource) return new Worker(new URL(`./${entry}.js`, import.meta.url), options);
  const script = `require(${JSON.stringify(createRequire(import.meta.url).resolve("tsx/cjs/api"))}).register();
     require(${JSON.stringify(fileURLToPath(new URL(`./${entry}.ts`, import.meta.url)))});`;
  return new Worker(script, { ...options, eval: true });
}

/** A thread started by startSqliteThread. */
export interface StartedSqliteThread<Message> {
  thread: Worker;
  /** Its first message: the writer's "ready" once it has opened the database, the migration's outcome. */
  first: Message;
  /** Resolves with its exit code once it has ended. */
  exited: Promise<number>;
}

/**
 * Starts `entry` on a new thread and resolves once its first message has come; an error or an exit before that
 * message rejects, and the thread is gone.
 */
export async function startSqliteThread<Message>(
  entry: SqliteThreadEntry,
  settings: SqliteThreadSettings,
): Promise<StartedSqliteThread<Message>> {
  // workerData is cloned into the thread: the settings only, never a caller's logger or other extras.
  const { filename, busyTimeoutMs } = settings;
  const thread = newThread(entry, { filename, busyTimeoutMs });
  // Listened for from the start: a thread that posts and ends at once (the migration) has its message and its
  // 'exit' emitted in one go when Node drains its port on exit, before a listener added after the message could
  // see it.
  const exited = new Promise<number>((resolve) => thread.once("exit", resolve));
  try {
    const first = await new Promise<Message>((resolve, reject) => {
      // An exit after the first message settles nothing: the promise is resolved by then.
      void exited.then((code) =>
        reject(new Error(`the SQLite thread ${entry} exited with code ${code} while opening`)),
      );
      thread.once("error", reject);
      thread.once("message", (message: Message) => {
        thread.off("error", reject);
        resolve(message);
      });
    });
    return { thread, first, exited };
  } catch (error) {
    await thread.terminate();
    throw error;
  }
}
