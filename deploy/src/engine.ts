import { spawnSync } from "node:child_process";
import { capture, onPath } from "./process.js";

export type EngineName = "podman" | "docker";

/** podman where it is installed, else docker; undefined with neither. */
export function findEngine(): EngineName | undefined {
  if (onPath("podman")) return "podman";
  if (onPath("docker")) return "docker";
  return undefined;
}

/** What `inspect` reports of an image: its config and labels. */
export interface ImageInfo {
  Id: string;
  Size: number;
  Config: {
    User?: string;
    Env?: string[];
    Entrypoint?: string[] | null;
    Cmd?: string[] | null;
    WorkingDir?: string;
    ExposedPorts?: Record<string, unknown>;
    Volumes?: Record<string, unknown>;
    StopSignal?: string;
    Labels?: Record<string, string> | null;
    Healthcheck?: { Test?: string[] };
  };
}

/** The image's inspect record, or undefined when the engine holds no image by that name. */
export function inspectImage(engine: EngineName, image: string): ImageInfo | undefined {
  const result = spawnSync(engine, ["image", "inspect", image]);
  if (result.status !== 0) return undefined;
  const [info] = JSON.parse(result.stdout.toString()) as ImageInfo[];
  if (info === undefined) return undefined;
  // podman reports the healthcheck beside the config; docker inside it.
  const podmanHealth = (info as { Healthcheck?: { Test?: string[] } }).Healthcheck;
  if (info.Config.Healthcheck === undefined && podmanHealth !== undefined) info.Config.Healthcheck = podmanHealth;
  return info;
}

/** Runs an engine command and returns its output. */
export function engineOutput(engine: EngineName, args: string[], input?: string | Buffer): string {
  return capture(engine, args, { input });
}
