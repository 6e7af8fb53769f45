import { LOCAL_TAG } from "./repo.js";

// The reference grammar of the distribution project (github.com/distribution/reference, which docker, podman
// and kustomize follow): [domain[:port]/]path[:tag][@digest]. The npm ports of it are unmaintained; these few
// expressions are its grammar as written there.
const DOMAIN =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::\d+)?$|^\[[0-9a-fA-F:]+\](?::\d+)?$/;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** An image reference taken apart: `registry.example.com:5000/team/plant-store-server:1.4.0@sha256:…`. */
export interface ImageReference {
  /** Everything before the tag and digest: the domain (when named) and the path. */
  repository: string;
  /** The registry's host[:port] when the reference names one (a first component with a dot or a port, or localhost). */
  domain?: string;
  tag?: string;
  digest?: string;
}

/** Parses a reference, or throws an Error saying what is wrong with it. */
export function parseImageReference(reference: string): ImageReference {
  const at = reference.indexOf("@");
  const digest = at === -1 ? undefined : reference.slice(at + 1);
  const named = at === -1 ? reference : reference.slice(0, at);
  const slash = named.lastIndexOf("/");
  const colon = named.lastIndexOf(":");
  const tag = colon > slash ? named.slice(colon + 1) : undefined;
  const repository = tag === undefined ? named : named.slice(0, colon);
  const components = repository.split("/");
  const first = components[0] ?? "";
  const domain =
    components.length > 1 && (/[.:]/.test(first) || first === "localhost" || first.startsWith("[")) ? first : undefined;
  const path = domain === undefined ? components : components.slice(1);
  const bad = (what: string) => new Error(`${reference} is not an image reference: ${what}`);
  if (domain !== undefined && !DOMAIN.test(domain)) throw bad(`"${domain}" is not a registry host[:port]`);
  const wrong = path.find((component) => !PATH_COMPONENT.test(component));
  if (wrong !== undefined)
    throw bad(`"${wrong}" is not a repository name (lower-case letters, digits, and . _ - between them)`);
  if (tag !== undefined && !TAG.test(tag))
    throw bad(`"${tag}" is not a tag (up to 128 of letters, digits, _ . -, not starting with . or -)`);
  if (digest !== undefined && !DIGEST.test(digest)) throw bad(`"${digest}" is not a digest (sha256:<64 hex digits>)`);
  return { repository, domain, tag, digest };
}

/**
 * The reference `pnpm image:build` and `pnpm image:push` act on: IMAGE as given when it carries a tag, tagged
 * with the server's version when it names only a repository, plant-store-server:local when it is unset. A digest
 * is what a push returns, not a name to build or push under, so it is refused.
 */
export function resolveImage(image: string | undefined, serverVersion: string): string {
  if (image === undefined || image === "") return LOCAL_TAG;
  const reference = parseImageReference(image);
  if (reference.digest !== undefined)
    throw new Error(`IMAGE=${image} names a digest; give a repository, with or without a tag`);
  // A tag cannot hold semver's "+" (build metadata): "_" stands for it, as Helm's charts do.
  return `${reference.repository}:${reference.tag ?? serverVersion.replaceAll("+", "_")}`;
}

/** Whether a registry host is this machine's loopback, which docker trusts over plain HTTP by default. */
export function isLoopbackRegistry(domain: string | undefined): boolean {
  if (domain === undefined) return false;
  const host = domain.replace(/:\d+$/, "");
  return host === "localhost" || /^127(?:\.\d{1,3}){3}$/.test(host) || host === "[::1]";
}
