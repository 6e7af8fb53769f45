import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  IMAGE_NAME,
  KUBERNETES,
  type Manifest,
  OVERLAYS,
  podContainers,
  renderOverlay,
  validateManifest,
} from "../src/kubernetes.js";
import { onPath } from "../src/process.js";

const CONTAINERFILE = fileURLToPath(new URL("../../apps/server/Containerfile", import.meta.url));

// Peak RSS of the server under the benchmark's load on Node 24.21 and 26.10 with the image's flags:
// 137-150 MiB (docs/performance.md).
const PEAK_RSS_MIB = 150;
// Peak RSS of the backup sidecar's command taking one snapshot of a 1 GB store (18,000,000 plants), Node 24.21 and
// 26.10 with the image's flags: 80-83 MiB (docs/deploying.md#kubernetes).
const BACKUP_PEAK_RSS_MIB = 83;

const WAITING_STORE = fileURLToPath(new URL("../../apps/server/src/store/waiting-store.ts", import.meta.url));
// How long a pod may wait for its database before the kubelet restarts it.
const STARTUP_WINDOW_S = 300;

/** The longest wait between two attempts to open the store: STORE_OPEN_RETRY's maxMs, in seconds. */
function storeRetryCapSeconds(): number {
  const match = /STORE_OPEN_RETRY\b[^=]*=\s*\{[^}]*\bmaxMs:\s*([\d_]+)/.exec(readFileSync(WAITING_STORE, "utf8"));
  if (!match?.[1]) throw new Error("apps/server/src/store/waiting-store.ts sets no STORE_OPEN_RETRY with a maxMs");
  return Number(match[1].replaceAll("_", "")) / 1000;
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

/** A flag's value in an argument list (`--keep 24`). */
const flag = (args: string[], name: string) => args[args.indexOf(name) + 1];

// The overlays are rendered by kubectl (`apt-get install kubectl`). Without it this suite says why and skips, as the
// browser suites do without Chromium; with CI=true it fails instead.
const kubectlMissing = !onPath("kubectl") && process.env.CI !== "true";
if (kubectlMissing)
  console.warn("deploy/test/kubernetes.test.ts skipped: kubectl is not installed (apt-get install kubectl)");
const rendered = (
  kubectlMissing ? {} : Object.fromEntries(OVERLAYS.map((overlay) => [overlay, renderOverlay(overlay)]))
) as Record<(typeof OVERLAYS)[number], Manifest[]>;

describe.skipIf(kubectlMissing)("the Kubernetes manifests, as kubectl kustomize renders each overlay", () => {
  it.each(OVERLAYS)("%s: every rendered document is valid against Kubernetes' schemas", (overlay) => {
    const kinds = rendered[overlay].map((manifest) => manifest.kind);
    expect(kinds).toEqual(expect.arrayContaining(["Deployment", "Service", "PodDisruptionBudget"]));
    for (const manifest of rendered[overlay]) validateManifest(manifest);
  });

  it("are checked by a validator that rejects a broken Deployment", () => {
    const broken = structuredClone(rendered.sqlite.find((manifest) => manifest.kind === "Deployment")!);
    broken.spec.replicas = "one";
    delete broken.spec.selector;
    expect(() => validateManifest(broken)).toThrow(/replicas|selector/);
  });

  it.each(["base", ...OVERLAYS])("%s/: every YAML file is in its kustomization, none lies unused", (folder) => {
    const dir = join(KUBERNETES, folder);
    const kustomization = parse(readFileSync(join(dir, "kustomization.yaml"), "utf8"));
    const used = [
      ...(kustomization.resources ?? []),
      ...(kustomization.patches ?? []).map((patch: Manifest) => patch.path),
    ];
    const files = readdirSync(dir).filter((name) => name.endsWith(".yaml") && name !== "kustomization.yaml");
    expect(used).toEqual(expect.arrayContaining(files));
  });

  it.each(OVERLAYS)("%s: without a team's images: entry, every container runs plant-store-server:local", (overlay) => {
    const images = podContainers(rendered[overlay]).map((container) => container.image);
    expect(new Set(images)).toEqual(new Set([`${IMAGE_NAME}:local`]));
  });

  it.each(OVERLAYS)(
    "%s: a team's images: entry points every container at its registry, by tag or by digest",
    (overlay) => {
      const newName = "registry.example.com/team/plant-store-server";
      const digest = `sha256:${"0123456789abcdef".repeat(4)}`;
      const byTag = podContainers(renderOverlay(overlay, { newName, newTag: "1.4.0" })).map(
        (container) => container.image,
      );
      expect(new Set(byTag)).toEqual(new Set([`${newName}:1.4.0`]));
      const byDigest = podContainers(renderOverlay(overlay, { newName, digest })).map((container) => container.image);
      expect(new Set(byDigest)).toEqual(new Set([`${newName}@${digest}`]));
    },
  );

  // Its body reads the rendered overlays as it is collected, so without kubectl it has no variants at all.
  describe.each(kubectlMissing ? [] : OVERLAYS)("the %s variant", (variant) => {
    const documents = rendered[variant];
    const deployment = documents.find((manifest) => manifest.kind === "Deployment")!;
    const pod = deployment.spec.template.spec;
    const containers: Manifest[] = pod.containers;
    const container = containers.find((entry) => entry.name === "server")!;
    const env = Object.fromEntries(
      container.env.filter((entry: Manifest) => "value" in entry).map((entry: Manifest) => [entry.name, entry.value]),
    );

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

    it("runs every container as non-root with a read-only root file system, no privileges and no capabilities", () => {
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      for (const entry of containers) {
        expect(entry.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ["ALL"] },
        });
      }
    });

    it("requests and limits the server's memory above the measured peak RSS, and every container's", () => {
      const { requests } = container.resources;
      expect(mebibytes(requests.memory)).toBeGreaterThan(PEAK_RSS_MIB);
      for (const entry of containers) {
        expect(mebibytes(entry.resources.limits.memory)).toBeGreaterThanOrEqual(
          mebibytes(entry.resources.requests.memory),
        );
        expect(entry.resources.requests.cpu).toBeDefined();
      }
    });

    it("has a Service and a PodDisruptionBudget that select its pods", () => {
      const labels = deployment.spec.template.metadata.labels;
      const service = documents.find((manifest) => manifest.kind === "Service")!;
      const budget = documents.find((manifest) => manifest.kind === "PodDisruptionBudget")!;
      expect(labels).toMatchObject(service.spec.selector);
      expect(labels).toMatchObject(budget.spec.selector.matchLabels);
      expect(container.ports.map((port: Manifest) => port.name)).toContain(service.spec.ports[0].targetPort);
    });

    if (variant === "sqlite") {
      const claims = documents.filter((manifest) => manifest.kind === "PersistentVolumeClaim");
      const claimOf = (mount: Manifest | undefined) => {
        const volume = pod.volumes.find((entry: Manifest) => entry.name === mount?.name);
        return claims.find((claim) => claim.metadata.name === volume?.persistentVolumeClaim?.claimName);
      };
      const dataDir = dirname(imageEnv("DATABASE_URL"));

      it("is one instance, replaced not rolled, with the image's data volume writable from a claim", () => {
        expect(deployment.spec.replicas).toBe(1);
        expect(deployment.spec.strategy.type).toBe("Recreate");
        const mount = container.volumeMounts.find((entry: Manifest) => entry.mountPath === dataDir);
        expect(claimOf(mount)).toBeDefined();
        expect(pod.securityContext.fsGroup).toBe(pod.securityContext.runAsGroup);
      });

      it("has a backup sidecar from the same image snapshotting the store into a claim of its own, sized for what it keeps", () => {
        const backup = containers.find((entry) => entry.name === "backup")!;
        expect(backup.image).toBe(container.image);
        expect(backup.args.slice(0, 2)).toEqual(["dist/cli/main.js", "backup"]);
        expect(mebibytes(backup.resources.requests.memory)).toBeGreaterThan(BACKUP_PEAK_RSS_MIB);
        const every = Number(flag(backup.args, "--every"));
        const keep = Number(flag(backup.args, "--keep"));
        expect(every).toBeGreaterThan(0);
        expect(keep).toBeGreaterThan(0);
        const data = claimOf(backup.volumeMounts.find((entry: Manifest) => entry.mountPath === dataDir));
        expect(data).toBe(claimOf(container.volumeMounts.find((entry: Manifest) => entry.mountPath === dataDir)));
        const snapshots = claimOf(
          backup.volumeMounts.find((entry: Manifest) => entry.mountPath === flag(backup.args, "--dir")),
        );
        expect(snapshots).toBeDefined();
        expect(snapshots).not.toBe(data);
        // The snapshots it keeps and the one being written, each at most the size of the store.
        const size = (claim: Manifest) => mebibytes(claim.spec.resources.requests.storage);
        expect(size(snapshots!)).toBeGreaterThanOrEqual((keep + 1) * size(data!));
      });

      it("exposes the backup sidecar's metrics port, apart from the server's ports", () => {
        const backup = containers.find((entry) => entry.name === "backup")!;
        const metricsPort = Number(flag(backup.args, "--metrics-port"));
        expect(backup.ports).toEqual([{ name: "backup-metrics", containerPort: metricsPort }]);
        // One network namespace per pod: the server's PORT (and any METRICS_PORT) must be other ports.
        const serverPorts = [
          Number(imageEnv("PORT")),
          ...container.ports.map((port: Manifest) => port.containerPort),
          Number(env.METRICS_PORT ?? NaN),
        ];
        expect(serverPorts).not.toContain(metricsPort);
      });
    } else {
      it("is several instances on PostgreSQL from the Secret, with no volume, rolled one at a time", () => {
        expect(deployment.spec.replicas).toBeGreaterThan(1);
        expect(container.env).toContainEqual({
          name: "DATABASE_URL",
          valueFrom: { secretKeyRef: { name: "plant-store", key: "DATABASE_URL" } },
        });
        expect(pod.volumes).toBeUndefined();
        expect(containers).toHaveLength(1);
        expect(deployment.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
      });

      it("waits for the store with a startupProbe on /readyz, probed as often as the server retries, for 5 minutes", () => {
        const { httpGet, periodSeconds, failureThreshold } = container.startupProbe;
        expect(httpGet).toEqual({ path: "/readyz", port: "http" });
        // 1 s is the kubelet's shortest period.
        expect(periodSeconds).toBeLessThanOrEqual(Math.max(1, storeRetryCapSeconds()));
        expect(periodSeconds * failureThreshold).toBeGreaterThanOrEqual(STARTUP_WINDOW_S);
      });
    }
  });
});
