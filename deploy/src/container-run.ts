import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ImageInfo } from "./engine.js";
import { capture } from "./process.js";

// Containers cannot be started on this machine (crun cannot set RLIMIT_NPROC without CAP_SYS_RESOURCE), so a
// container's file system is mounted with podman and its process started the way the runtime would start it:
// chrooted into that file system, as the image's user, in its working directory, with its environment, /proc
// and /dev, and the volume bind-mounted. The mounts are made in a mount namespace of the process's own, so
// they go when it exits. Not isolated: it shares the host's network, PID space and limits.

/** A container created from an image with its root file system mounted on the host. */
export interface MountedContainer {
  id: string;
  root: string;
  /** Unmounts and removes the container. */
  remove: () => void;
}

export function mountContainer(image: string): MountedContainer {
  const id = capture("podman", ["create", image]).trim();
  try {
    const root = capture("podman", ["mount", id]).trim();
    return { id, root, remove: () => capture("podman", ["rm", "--force", "--volumes", id]) };
  } catch (error) {
    capture("podman", ["rm", "--force", id]);
    throw error;
  }
}

/** A process started in a mounted container. */
export interface ContainerProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** The image's Env as a record, with `overrides` on top (as `docker run -e` gives them). */
export function imageEnv(info: ImageInfo, overrides: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of info.Config.Env ?? []) {
    const at = entry.indexOf("=");
    env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return { ...env, ...overrides };
}

/** The image's USER as numbers, names looked up in the container's /etc/passwd and /etc/group. */
export function imageUser(info: ImageInfo, root: string): { uid: number; gid: number } {
  const [user = "0", group] = (info.Config.User || "0").split(":");
  const lookup = (file: string, name: string) => {
    if (/^\d+$/.test(name)) return Number(name);
    const line = readFileSync(join(root, "etc", file), "utf8")
      .split("\n")
      .find((entry) => entry.startsWith(`${name}:`));
    if (line === undefined) throw new Error(`${name} is not in the image's /etc/${file}`);
    return Number(line.split(":")[2]);
  };
  const uid = lookup("passwd", user);
  let gid = group === undefined ? undefined : lookup("group", group);
  if (gid === undefined) {
    const line = readFileSync(join(root, "etc", "passwd"), "utf8")
      .split("\n")
      .find((entry) => entry.split(":")[2] === String(uid));
    gid = line === undefined ? 0 : Number(line.split(":")[3]);
  }
  return { uid, gid };
}

/**
 * Starts the image's entrypoint with `command` (default: its CMD) in the mounted container, as its user, in
 * its working directory, with `env`, and `volume.host` (and each of `volumes`) bind-mounted at its `path`.
 */
export function startInContainer(
  container: MountedContainer,
  info: ImageInfo,
  options: {
    env: Record<string, string>;
    command?: string[];
    volume?: { host: string; path: string };
    volumes?: { host: string; path: string }[];
    readOnlyRoot?: boolean;
  },
): ContainerProcess {
  const { uid, gid } = imageUser(info, container.root);
  const argv = [...(info.Config.Entrypoint ?? []), ...(options.command ?? info.Config.Cmd ?? [])];
  const volumes = [...(options.volume ? [options.volume] : []), ...(options.volumes ?? [])];
  // As a runtime does, a mount point the image lacks is made (in this container's own layer) before the root is
  // made read-only.
  const mounts = volumes.map((_, index) => `mkdir -p "$0\${${2 * index + 2}}"`);
  // A read-only root file system, as Kubernetes' readOnlyRootFilesystem gives it: the volumes stay writable.
  if (options.readOnlyRoot) mounts.push('mount --bind "$0" "$0"', 'mount -o remount,bind,ro "$0"');
  mounts.push('mount --rbind /proc "$0/proc"', 'mount --rbind /dev "$0/dev"');
  for (const [index] of volumes.entries()) mounts.push(`mount --bind "\${${2 * index + 1}}" "$0\${${2 * index + 2}}"`);
  const script = `set -e; ${mounts.join("; ")}; shift ${2 * volumes.length}; exec "$@"`;
  const child = spawn(
    "/usr/bin/unshare",
    [
      "--mount",
      "--propagation",
      "private",
      "--",
      "/bin/sh",
      "-c",
      script,
      container.root,
      ...volumes.flatMap((volume) => [volume.host, volume.path]),
      "/usr/bin/unshare",
      `--root=${container.root}`,
      `--wd=${info.Config.WorkingDir || "/"}`,
      "--setgid",
      String(gid),
      "--setuid",
      String(uid),
      "--",
      ...argv,
    ],
    { env: options.env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  child.stderr.on("data", (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}
