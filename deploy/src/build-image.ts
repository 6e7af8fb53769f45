import { existsSync } from "node:fs";
import type { EngineName } from "./engine.js";
import { run } from "./process.js";
import { CONTAINERFILE, LOCAL_TAG, REPO, revision, serverPackage, sourceUrl } from "./repo.js";

const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"];

/**
 * Builds apps/server/Containerfile from the repository root as `image` (default plant-store-server:local), as
 * `podman build` or `docker build` would by hand, with the labels' values and how to reach the registry
 * filled in: the proxy variables that are set, and the extra CA certificates (NODE_EXTRA_CA_CERTS) as the
 * optional build secret `npm_ca`.
 */
export async function buildServerImage(engine: EngineName, options: { image?: string } = {}): Promise<void> {
  const args = ["build", "--file", CONTAINERFILE, "--tag", options.image ?? LOCAL_TAG];
  args.push("--build-arg", `SERVER_VERSION=${serverPackage().version}`);
  args.push("--build-arg", `SOURCE_URL=${sourceUrl()}`, "--build-arg", `REVISION=${revision()}`);
  for (const name of PROXY_VARIABLES) {
    const value = process.env[name];
    if (value) args.push("--build-arg", `${name}=${value}`);
  }
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  if (ca && existsSync(ca)) args.push("--secret", `id=npm_ca,src=${ca}`);
  const env = { ...process.env };
  if (engine === "podman") {
    // HEALTHCHECK is part of the docker image format only; podman's default (OCI) would drop it.
    args.push("--format", "docker");
    // Build steps run in a chroot rather than a container unless told otherwise: this builds where
    // containers cannot be started (as on CI here), and a build step needs no more.
    env.BUILDAH_ISOLATION ??= "chroot";
  } else {
    env.DOCKER_BUILDKIT ??= "1";
  }
  args.push(REPO);
  console.log(`image: ${engine} ${args.join(" ")}`);
  await run(engine, args, { env });
}
