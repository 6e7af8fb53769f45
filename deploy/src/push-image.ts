import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EngineName, engineOutput, inspectImage } from "./engine.js";
import { isLoopbackRegistry, parseImageReference } from "./image-reference.js";
import { run } from "./process.js";

/** What a push left in the registry: the manifest's digest, and the reference that pins it. */
export interface Pushed {
  digest: string;
  /** repository@digest: what a manifest names to run exactly this image. */
  pinned: string;
}

/**
 * Pushes a local image to the registry its reference names, as `podman push` or `docker push` would by hand,
 * and returns the digest the registry holds it under. A registry on the loopback address is spoken to over
 * plain HTTP, as docker does by default (podman asks for it with --tls-verify=false); any other over TLS.
 */
export async function pushImage(engine: EngineName, image: string, options: { quiet?: boolean } = {}): Promise<Pushed> {
  const reference = parseImageReference(image);
  if (reference.domain === undefined) {
    throw new Error(`IMAGE=${image} names no registry: write it as <registry host>/${reference.repository}[:tag]`);
  }
  if (inspectImage(engine, image) === undefined) {
    throw new Error(`${engine} holds no image ${image}: build it first with IMAGE=${image} pnpm image:build`);
  }
  const log = (line: string) => (options.quiet ? undefined : console.error(line));
  let digest: string;
  if (engine === "podman") {
    const scratch = mkdtempSync(join(tmpdir(), "plant-store-push-"));
    try {
      const args = ["push", "--digestfile", join(scratch, "digest")];
      if (options.quiet) args.push("--quiet");
      if (isLoopbackRegistry(reference.domain)) args.push("--tls-verify=false");
      args.push(image);
      log(`image: podman ${args.join(" ")}`);
      await run("podman", args);
      digest = readFileSync(join(scratch, "digest"), "utf8").trim();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  } else {
    log(`image: docker push ${image}`);
    await run("docker", ["push", ...(options.quiet ? ["--quiet"] : []), image]);
    // After a push, docker records the registry's digest among the image's RepoDigests.
    const digests = JSON.parse(
      engineOutput("docker", ["image", "inspect", "--format", "{{json .RepoDigests}}", image]),
    ) as string[];
    const entry = digests.find((entry) => entry.startsWith(`${reference.repository}@`));
    if (entry === undefined)
      throw new Error(`docker pushed ${image} but records no digest for ${reference.repository}`);
    digest = entry.slice(entry.indexOf("@") + 1);
  }
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`${engine} push ${image} reported no digest (${digest})`);
  return { digest, pinned: `${reference.repository}@${digest}` };
}
