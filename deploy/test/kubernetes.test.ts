import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Deployment } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { PersistentVolumeClaim, Service } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

const KUBERNETES = fileURLToPath(new URL("../kubernetes/", import.meta.url));
const CONTAINERFILE = fileURLToPath(new URL("../../apps/server/Containerfile", import.meta.url));

// Peak RSS of the server under the benchmark's load on Node 24.21 and 26.10 with the image's flags:
// 137-150 MiB in docs/benchmarks.md and docs/deploying.md.
const PEAK_RSS_MIB = 150;

// kubernetes-models' validators are compiled (with ajv) from the JSON schemas in Kubernetes' published
// OpenAPI document; each kind's model checks a manifest against its schema.
const MODELS = {
  "apps/v1/Deployment": Deployment,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "v1/PersistentVolumeClaim": PersistentVolumeClaim,
  "v1/Service": Service,
} as const;

// biome-ignore lint/suspicious/noExplicitAny: manifests are plain parsed YAML
type Manifest = Record<string, any>;

function manifests(folder: string): Manifest[] {
  const dir = join(KUBERNETES, folder);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .flatMap((name) => parseAllDocuments(readFileSync(join(dir, name), "utf8")).map((doc) => doc.toJS() as Manifest));
}

function validate(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}` as keyof typeof MODELS];
  if (Model === undefined) throw new Error(`no schema here for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest as never).validate();
}

/** The image's ENV values, from the Containerfile's final stage. */
function imageEnv(name: string): string {
  const match = new RegExp(`\\b${name}=(\\S+)`).exec(readFileSync(CONTAINERFILE, "utf8"));
  if (!match?.[1]) throw new Error(`the Containerfile sets no ${name}`);
  return match[1];
}

const mebibytes = (quantity: string) => {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`${quantity} is not in Mi or Gi`);
  return Number(match[1]) * (match[2] === "Gi" ? 1024 : 1);
};

const shared = manifests(".");
const variants = { sqlite: manifests("sqlite"), postgres: manifests("postgres") };

describe("the Kubernetes manifests", () => {
  it.each(Object.entries({ shared, ...variants }))("in %s are valid against Kubernetes' schemas", (_, documents) => {
    expect(documents.length).toBeGreaterThan(0);
    for (const manifest of documents) validate(manifest);
  });

  it("are checked by a validator that rejects a broken Deployment", () => {
    const [deployment] = variants.sqlite.filter((manifest) => manifest.kind === "Deployment");
    const broken = structuredClone(deployment!);
    broken.spec.replicas = "one";
    delete broken.spec.selector;
    expect(() => validate(broken)).toThrow(/replicas|selector/);
  });

  describe.each(Object.entries(variants))("the %s variant", (variant, documents) => {
    const deployment = documents.find((manifest) => manifest.kind === "Deployment")!;
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    const env = Object.fromEntries(container.env.filter((entry: Manifest) => "value" in entry).map((entry: Manifest) => [entry.name, entry.value]));

    it("probes liveness on /healthz and readiness on /readyz at the port the image listens on", () => {
      expect(container.ports).toContainEqual({ name: "http", containerPort: Number(imageEnv("PORT")) });
      expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
      expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    });

    it("gives the drain its time: grace period above SHUTDOWN_DELAY_MS + SHUTDOWN_TIMEOUT_MS, readiness failing within the delay", () => {
      const delay = Number(env.SHUTDOWN_DELAY_MS);
      const timeout = Number(env.SHUTDOWN_TIMEOUT_MS);
      expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(delay + timeout);
      const { periodSeconds, failureThreshold } = container.readinessProbe;
      expect(periodSeconds * failureThreshold * 1000).toBeLessThan(delay);
    });

    it("runs as non-root with a read-only root file system, no privileges and no capabilities", () => {
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
    });

    it("requests and limits memory above the measured peak RSS", () => {
      const { requests, limits } = container.resources;
      expect(mebibytes(requests.memory)).toBeGreaterThan(PEAK_RSS_MIB);
      expect(mebibytes(limits.memory)).toBeGreaterThanOrEqual(mebibytes(requests.memory));
      expect(requests.cpu).toBeDefined();
    });

    it("has a Service and a PodDisruptionBudget that select its pods", () => {
      const labels = deployment.spec.template.metadata.labels;
      const service = shared.find((manifest) => manifest.kind === "Service")!;
      const budget = documents.find((manifest) => manifest.kind === "PodDisruptionBudget")!;
      expect(labels).toMatchObject(service.spec.selector);
      expect(labels).toMatchObject(budget.spec.selector.matchLabels);
      expect(container.ports.map((port: Manifest) => port.name)).toContain(service.spec.ports[0].targetPort);
    });

    if (variant === "sqlite") {
      it("is one instance, replaced not rolled, with the image's data volume writable from a claim", () => {
        expect(deployment.spec.replicas).toBe(1);
        expect(deployment.spec.strategy.type).toBe("Recreate");
        const dataDir = dirname(imageEnv("DATABASE_URL"));
        const mount = container.volumeMounts.find((entry: Manifest) => entry.mountPath === dataDir);
        const volume = pod.volumes.find((entry: Manifest) => entry.name === mount?.name);
        const claim = documents.find((manifest) => manifest.kind === "PersistentVolumeClaim")!;
        expect(volume.persistentVolumeClaim.claimName).toBe(claim.metadata.name);
        expect(pod.securityContext.fsGroup).toBe(pod.securityContext.runAsGroup);
      });
    } else {
      it("is several instances on PostgreSQL from the Secret, with no volume, rolled one at a time", () => {
        expect(deployment.spec.replicas).toBeGreaterThan(1);
        expect(container.env).toContainEqual({
          name: "DATABASE_URL",
          valueFrom: { secretKeyRef: { name: "plant-store", key: "DATABASE_URL" } },
        });
        expect(pod.volumes).toBeUndefined();
        expect(deployment.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
      });
    }
  });
});
