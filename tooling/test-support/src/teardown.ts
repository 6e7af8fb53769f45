import { afterAll, onTestFinished } from "vitest";

// What a fixture started outside a test (a beforeAll, a describe body) is torn down after the test file.
const afterFile: (() => unknown)[] = [];
afterAll(async () => {
  await runAll(afterFile.splice(0).reverse());
});

/**
 * How every fixture here tears itself down, so that a test file keeps no list of things to stop: `cleanup` runs when
 * the current test finishes (pass or fail), or after the file's tests when the fixture was started outside a test.
 */
export function tearDownWith(cleanup: () => unknown): void {
  try {
    onTestFinished(async () => {
      await cleanup();
    });
  } catch {
    // Not inside a test: onTestFinished throws, and the file's afterAll above runs it.
    afterFile.push(cleanup);
  }
}

/** Runs every cleanup even when one fails (a folder is removed even if stopping a process failed); throws the first failure. */
async function runAll(cleanups: (() => unknown)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const cleanup of cleanups) {
    try {
      await cleanup();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
}
