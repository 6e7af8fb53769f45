import { chownSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { check } from "./check.js";
import { imageEnv, imageUser, mountContainer, startInContainer } from "./container-run.js";
import type { ImageInfo } from "./engine.js";
import { type Manifest, renderOverlay } from "./kubernetes.js";
import { LOCAL_TAG } from "./repo.js";

/**
 * The SQLite overlay's backup sidecar as its manifest runs it: the image with the container's args, its root
 * read-only, the server's data volume (`data`, holding a store of `plants` plants, the server running on it) and a
 * volume of its own. It must take a snapshot at start, holding every plant, and stop on SIGTERM with exit 0.
 */
export async function checkBackupSidecar(
  info: ImageInfo,
  data: { host: string; path: string },
  plants: number,
): Promise<void> {
  const deployment = renderOverlay("sqlite").find((manifest) => manifest.kind === "Deployment")!;
  const pod = deployment.spec.template.spec;
  const claimOf = (name: string) =>
    pod.volumes.find((volume: Manifest) => volume.name === name)?.persistentVolumeClaim?.claimName;
  const server = pod.containers.find((container: Manifest) => container.name === "server");
  const sidecar = pod.containers.find((container: Manifest) => container.name === "backup");
  const dataClaim = claimOf(server.volumeMounts.find((mount: Manifest) => mount.mountPath === data.path)?.name);
  const own = mkdtempSync(join(tmpdir(), "plant-store-image-backups-"));
  const container = mountContainer(LOCAL_TAG);
  try {
    const { uid, gid } = imageUser(info, container.root);
    chownSync(own, uid, gid);
    // The server's claim is the server's volume here; any other is the sidecar's own.
    const volumes = sidecar.volumeMounts.map((mount: Manifest) => ({
      host: claimOf(mount.name) === dataClaim ? data.host : own,
      path: mount.mountPath,
    }));
    check(
      volumes.filter((volume: { host: string }) => volume.host === data.host).length === 1 && volumes.length === 2,
      `the backup sidecar mounts the server's volume and one of its own (${sidecar.volumeMounts.map((mount: Manifest) => `${mount.name} at ${mount.mountPath}`).join(", ")})`,
    );
    const backup = startInContainer(container, info, {
      env: imageEnv(info),
      command: sidecar.args,
      volumes,
      readOnlyRoot: sidecar.securityContext.readOnlyRootFilesystem,
    });
    const deadline = Date.now() + 30_000;
    while (!/backed up \d+ plants/.test(backup.stdout()) && backup.child.exitCode === null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const taken = /backed up (\d+) plants/.exec(backup.stdout());
    if (backup.child.exitCode === null) backup.child.kill("SIGTERM");
    const code = await backup.exited;
    check(
      Number(taken?.[1]) === plants,
      `the sidecar (${sidecar.args.join(" ")}) snapshots the running server's store at start: ${plants} plants`,
      `${backup.stdout()}\n${backup.stderr()}`,
    );
    check(
      code === 0 && /stopped/.test(backup.stdout()),
      "and stops on SIGTERM with exit 0",
      `exit ${code}\n${backup.stderr()}`,
    );
    const files = readdirSync(own);
    check(
      files.length === 1 && /^plants-.*\.db$/.test(files[0]!),
      `its volume holds the one snapshot: ${files.join(", ")}`,
    );
    const snapshot = new DatabaseSync(join(own, files[0]!), { readOnly: true });
    try {
      const integrity = snapshot.prepare("PRAGMA integrity_check").get()?.integrity_check;
      const count = snapshot.prepare("SELECT count(*) AS count FROM plants").get()?.count;
      check(
        integrity === "ok" && count === plants,
        `the snapshot passes SQLite's integrity check and holds ${count} plants`,
      );
    } finally {
      snapshot.close();
    }
  } finally {
    container.remove();
    rmSync(own, { recursive: true, force: true });
  }
}
