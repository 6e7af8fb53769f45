import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check } from "./check.js";
import type { ImageInfo } from "./engine.js";
import { resolveImage } from "./image-reference.js";
import { IMAGE_NAME, OVERLAYS, podContainers, renderOverlay, validateManifest } from "./kubernetes.js";
import { pushImage } from "./push-image.js";
import { capture } from "./process.js";
import { startRegistry } from "./registry.js";
import { LOCAL_TAG, revision, serverPackage } from "./repo.js";

const MANIFEST_TYPES = [
  "application/vnd.docker.distribution.manifest.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.index.v1+json",
].join(", ");

/**
 * The image into a registry, as a team ships it: a registry of its own on 127.0.0.1 (Debian's docker-registry),
 * the image tagged as `IMAGE=<registry>/plant-store-server pnpm image:build` names it and pushed as
 * `pnpm image:push` pushes it; pulled back by digest into an empty image store, it is the same image; the
 * manifests rendered with that digest validate.
 */
export async function checkRegistry(info: ImageInfo): Promise<void> {
  const version = serverPackage().version;
  const registry = await startRegistry();
  const store = mkdtempSync(join(tmpdir(), "plant-store-pull-"));
  // An image store of its own, so the pull cannot be served from the layers already here.
  const scratch = ["--root", join(store, "root"), "--runroot", join(store, "run"), "--storage-driver", "overlay"];
  let image: string | undefined;
  try {
    check(true, `a registry on ${registry.host} (docker-registry serve, storage in a temporary folder)`);
    image = resolveImage(`${registry.host}/${IMAGE_NAME}`, version);
    check(
      image === `${registry.host}/${IMAGE_NAME}:${version}`,
      `IMAGE=${registry.host}/${IMAGE_NAME} is tagged with the server's version: ${image}`,
    );
    capture("podman", ["tag", LOCAL_TAG, image]);
    const pushed = await pushImage("podman", image, { quiet: true });
    check(true, `pushed ${image}: digest ${pushed.digest}`);

    const response = await fetch(`http://${registry.host}/v2/${IMAGE_NAME}/manifests/${version}`, {
      headers: { accept: MANIFEST_TYPES },
    });
    const served = response.headers.get("docker-content-digest");
    check(
      response.status === 200 && served === pushed.digest,
      `the registry serves tag ${version} as that digest (${served})`,
      `GET manifest: ${response.status}`,
    );

    capture("podman", [...scratch, "pull", "--quiet", "--tls-verify=false", pushed.pinned]);
    const [pulled] = JSON.parse(capture("podman", [...scratch, "image", "inspect", pushed.pinned])) as ImageInfo[];
    check(
      pulled?.Id === info.Id,
      `pulled back by digest into an empty image store: image ID ${pulled?.Id}, the one built (${info.Id})`,
    );
    const labels = pulled?.Config.Labels ?? {};
    check(
      labels["org.opencontainers.image.version"] === version &&
        labels["org.opencontainers.image.revision"] === revision(),
      `the pulled image's labels: version ${labels["org.opencontainers.image.version"]}, revision ${labels["org.opencontainers.image.revision"] || "(empty)"}`,
    );

    const newName = `${registry.host}/${IMAGE_NAME}`;
    for (const overlay of OVERLAYS) {
      const manifests = renderOverlay(overlay, { newName, digest: pushed.digest });
      for (const manifest of manifests) validateManifest(manifest);
      const images = [...new Set(podContainers(manifests).map((container) => container.image))];
      check(
        images.length === 1 && images[0] === pushed.pinned,
        `deploy/kubernetes/${overlay} rendered with that digest: ${manifests.length} documents valid against Kubernetes' schemas, every container on ${images.join(", ")}`,
      );
    }
  } finally {
    if (image !== undefined) capture("podman", ["rmi", "--ignore", image]);
    // The scratch store's layers are overlay mounts that only podman can take apart.
    capture("podman", [...scratch, "rmi", "--all", "--force"]);
    rmSync(store, { recursive: true, force: true });
    await registry.stop();
  }
}
