import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tearDownWith } from "./teardown.js";

/** A fresh folder under the system's temp folder, removed with everything in it when the test (or file) is done. */
export function tempDir(prefix = "plant-store-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tearDownWith(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
