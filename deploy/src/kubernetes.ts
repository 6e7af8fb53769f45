import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { PersistentVolumeClaim, Service } from "kubernetes-models/v1";
import { parseAllDocuments, stringify } from "yaml";
import { capture, onPath } from "./process.js";
import { REPO } from "./repo.js";

/** deploy/kubernetes: a kustomize base (base/) and an overlay per store. */
export const KUBERNETES = join(REPO, "deploy", "kubernetes");
export const OVERLAYS = ["sqlite", "postgres"] as const;
export type Overlay = (typeof OVERLAYS)[number];

/** The image name the manifests use, which a kustomization's `images:` entry rewrites. */
export const IMAGE_NAME = "plant-store-server";

// biome-ignore lint/suspicious/noExplicitAny: manifests are plain parsed YAML
export type Manifest = Record<string, any>;

/** An `images:` entry of a kustomization: where the image comes from, by tag or by digest. */
export interface ImageOverride {
  newName?: string;
  newTag?: string;
  digest?: string;
}

// kubernetes-models' validators are compiled (with ajv) from the JSON schemas in Kubernetes' published
// OpenAPI document; each kind's model checks a manifest against its schema.
const MODELS = {
  "apps/v1/Deployment": Deployment,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "v1/PersistentVolumeClaim": PersistentVolumeClaim,
  "v1/Service": Service,
} as const;

/** Checks a manifest against its kind's schema; throws naming what is wrong. */
export function validateManifest(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}` as keyof typeof MODELS];
  if (Model === undefined) throw new Error(`no schema here for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest as never).validate();
}

/**
 * What `kubectl kustomize` renders for an overlay: what `kubectl apply -k` would send. With `image`, the
 * overlay is rendered as a team's own kustomization would use it: listed as a resource, beside an `images:`
 * entry for the server's image.
 */
export function renderOverlay(overlay: Overlay, image?: ImageOverride): Manifest[] {
  if (!onPath("kubectl"))
    throw new Error(
      "kubectl is not installed: the manifests are kustomize overlays, rendered with `kubectl kustomize`",
    );
  if (image === undefined) return parse(capture("kubectl", ["kustomize", join(KUBERNETES, overlay)]));
  const dir = mkdtempSync(join(tmpdir(), "plant-store-kustomization-"));
  try {
    // kustomize takes resources by relative path only.
    const kustomization = {
      resources: [relative(dir, join(KUBERNETES, overlay))],
      images: [{ name: IMAGE_NAME, ...image }],
    };
    writeFileSync(join(dir, "kustomization.yaml"), stringify(kustomization));
    return parse(capture("kubectl", ["kustomize", dir]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parse(output: string): Manifest[] {
  return parseAllDocuments(output).map((document) => document.toJS() as Manifest);
}

/** Every container of every Deployment's pods, init containers included. */
export function podContainers(manifests: Manifest[]): Manifest[] {
  return manifests
    .filter((manifest) => manifest.kind === "Deployment")
    .flatMap((deployment) => [
      ...(deployment.spec.template.spec.initContainers ?? []),
      ...deployment.spec.template.spec.containers,
    ]);
}
