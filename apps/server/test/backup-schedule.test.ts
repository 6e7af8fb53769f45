import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signToken } from "../src/auth/sign-token.js";
import { startCli } from "./support/cli-process.js";
import { serverProcesses } from "./support/server-process.js";
import { querySqliteFile } from "@plant-store/test-support/sqlite-file";
import { tempDir } from "@plant-store/test-support/temp-dir";
import { TEST_SECRET } from "./support/test-server.js";

// The schedule's turns, its --keep and its stop, through real processes. They mostly wait for the next turn, so they
// run beside other files; the snapshot under load and SIGTERM during a large one are in backup-restore.test.ts.
const servers = serverProcesses({
  JWT_SECRET: TEST_SECRET,
  NODE_ENV: "production",
  HOST: "127.0.0.1",
  SHUTDOWN_DELAY_MS: "0",
  ADMISSION_CONTROL: "false",
});

const token = signToken({ secret: TEST_SECRET });

describe("backup --dir: scheduled snapshots", () => {
  it("scheduled: a snapshot at start and every --every minutes into --dir, the newest --keep kept, SIGTERM stops it with exit 0", async () => {
    const dir = tempDir("plant-store-backup-");
    const databaseFile = join(dir, "data", "plants.db");
    const server = await servers.start({ DATABASE_URL: databaseFile });
    const created = await fetch(`${server.baseUrl}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: '{"id": 7, "name": "Fern"}',
    });
    expect(created.status).toBe(200);
    const backups = join(dir, "backups");
    // Left by a backup killed mid-copy: removed, never counted as a snapshot.
    mkdirSync(backups);
    writeFileSync(join(backups, "plants-20260101T000000Z.db.partial"), "half a copy");
    writeFileSync(join(backups, "notes.txt"), "the operator's own file");

    // 0.02 minutes: a snapshot every 1.2 s.
    const scheduled = startCli(["backup", "--dir", backups, "--every", "0.02", "--keep", "2"], {
      DATABASE_URL: databaseFile,
    });
    await scheduled.waitForStdout(/(^backed up 1 plants.*\n){3}/m);
    scheduled.child.kill("SIGTERM");
    expect(await scheduled.exited).toBe(0);
    expect(scheduled.stderr()).toBe("");
    expect(scheduled.stdout()).toMatch(
      /^backing up .+plants\.db into .+backups every 0\.02 min, keeping the newest 2\n/,
    );
    expect(scheduled.stdout()).toMatch(/; 1 older removed\n(.|\n)*stopped\n$/);
    const left = readdirSync(backups).sort();
    expect(left).toHaveLength(3);
    expect(left[0]).toBe("notes.txt");
    for (const name of left.slice(1)) {
      expect(name).toMatch(/^plants-\d{8}T\d{6}Z\.db$/);
      expect(querySqliteFile(join(backups, name), (db) => db.prepare("SELECT name FROM plants").all())).toEqual([
        { name: "Fern" },
      ]);
    }
  });

  it("scheduled: a failed snapshot is reported on one line and tried again at the next turn", async () => {
    const dir = tempDir("plant-store-backup-");
    const scheduled = startCli(["backup", "--dir", join(dir, "backups"), "--every", "0.02"], {
      DATABASE_URL: join(dir, "missing.db"),
    });
    await scheduled.waitForStderr(
      /(^backup failed: there is no SQLite store at .+missing\.db; next try at \d{4}-[\d-]+T[\d:.]+Z\n){2}/m,
    );
    scheduled.child.kill("SIGTERM");
    expect(await scheduled.exited).toBe(0);
    expect(readdirSync(join(dir, "backups"))).toEqual([]);
  });
});
