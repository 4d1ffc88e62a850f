/**
 * deploy/kubernetes rendered with the real `kubectl kustomize` and checked for what an operator relies on; the
 * rendered ConfigMap is then fed to `supernode config` (with the Secrets' variables) to prove its env names and
 * values form a valid configuration.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { describeWithTools } from "../../support/system-tools.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../../..");

// biome-ignore lint/suspicious/noExplicitAny: rendered Kubernetes objects are checked field by field
type K8s = any;

describeWithTools(["kubectl"], "deploy/kubernetes (kubectl kustomize)", (tools) => {
  let objects: K8s[] = [];
  const one = (kind: string, name?: string): K8s => {
    const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
    expect(found, `${kind} ${name ?? ""}`).toHaveLength(1);
    return found[0];
  };

  beforeAll(async () => {
    const { stdout } = await run(tools.kubectl as string, ["kustomize", join(ROOT, "deploy/kubernetes")]);
    objects = parseAllDocuments(stdout).map((d) => d.toJS());
  });

  it("renders a StatefulSet with /data, the JWT Secret, probes, non-root security and resources", () => {
    const sts = one("StatefulSet", "supernode");
    const pod = sts.spec.template.spec;
    const c = pod.containers.find((x: K8s) => x.name === "supernode");
    expect(sts.spec.serviceName).toBe("supernode-headless");
    // /data on a persistent volume claim template.
    expect(c.volumeMounts).toContainEqual(expect.objectContaining({ name: "data", mountPath: "/data" }));
    expect(sts.spec.volumeClaimTemplates.map((v: K8s) => v.metadata.name)).toContain("data");
    expect(c.env).toContainEqual({ name: "SUPERNODE_DATA_DIR", value: "/data" });
    // The Engine API JWT secret: a Secret volume, mounted read-only where the config points.
    const jwtVol = pod.volumes.find((v: K8s) => v.secret !== undefined);
    expect(jwtVol.secret.secretName).toBe("supernode-engine-jwt");
    const jwtMount = c.volumeMounts.find((m: K8s) => m.name === jwtVol.name);
    expect(jwtMount.readOnly).toBe(true);
    const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("supernode-config"));
    expect(`${cm.data.SUPERNODE_VN_ALL_L2_ENGINE_AUTH}`).toBe(`${jwtMount.mountPath}/jwt.hex`);
    // The ConfigMap reference was rewritten to the generated (hashed) name.
    expect(c.envFrom).toContainEqual({ configMapRef: { name: cm.metadata.name } });
    expect(c.envFrom).toContainEqual({ secretRef: { name: "supernode-endpoints" } });
    // Probes.
    expect(c.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "rpc" });
    expect(c.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "rpc" });
    // Non-root, as the image's own user (the Dockerfile's `USER uid:gid`).
    const user = /^USER (\d+):(\d+)$/m.exec(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
    expect(user, "the Dockerfile's USER uid:gid").not.toBeNull();
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBe(Number(user?.[1]));
    expect(pod.securityContext.runAsGroup).toBe(Number(user?.[2]));
    expect(pod.securityContext.fsGroup).toBe(Number(user?.[2]));
    expect(c.securityContext.allowPrivilegeEscalation).toBe(false);
    expect(c.securityContext.capabilities.drop).toContain("ALL");
    // A read-only root filesystem, as `npm run image` runs the image: /data is the only writable mount.
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(c.volumeMounts.filter((m: K8s) => m.readOnly !== true).map((m: K8s) => m.mountPath)).toEqual(["/data"]);
    // Resources.
    expect(c.resources.requests.cpu).toBeDefined();
    expect(c.resources.requests.memory).toBeDefined();
    expect(c.resources.limits.memory).toBeDefined();
  });

  it("exposes RPC and metrics on a Service, P2P per chain, a ServiceMonitor and a PodDisruptionBudget", () => {
    const sts = one("StatefulSet", "supernode");
    const podLabels = sts.spec.template.metadata.labels;
    const c = sts.spec.template.spec.containers[0];
    const selects = (sel: Record<string, string>) => Object.entries(sel).every(([k, v]) => podLabels[k] === v);

    const svc = one("Service", "supernode");
    expect(selects(svc.spec.selector)).toBe(true);
    expect(svc.spec.ports.map((p: K8s) => [p.name, p.port])).toEqual([
      ["rpc", 8545],
      ["metrics", 7300],
    ]);
    // P2P: per chain of SUPERNODE_CHAINS a TCP and a UDP port on the container and the P2P Service, matching the
    // chain's configured listen ports.
    const cm = objects.find((o) => o.kind === "ConfigMap");
    const chains = String(cm.data.SUPERNODE_CHAINS).split(",");
    const p2p = one("Service", "supernode-p2p");
    expect(selects(p2p.spec.selector)).toBe(true);
    for (const id of chains) {
      for (const proto of ["TCP", "UDP"]) {
        const name = `p2p-${id}-${proto.toLowerCase()}`;
        const port = Number(cm.data[`SUPERNODE_VN_${id}_P2P_LISTEN_${proto}_PORT`]);
        expect(port, name).toBeGreaterThan(0);
        expect(c.ports).toContainEqual({ name, containerPort: port, protocol: proto });
        expect(p2p.spec.ports).toContainEqual({ name, port, targetPort: name, protocol: proto });
      }
    }
    // Container ports of the Services exist.
    const portNames = new Set(c.ports.map((p: K8s) => p.name));
    for (const s of [svc, p2p]) for (const p of s.spec.ports) expect(portNames).toContain(p.targetPort);

    const sm = one("ServiceMonitor", "supernode");
    expect(Object.entries(sm.spec.selector.matchLabels).every(([k, v]) => svc.metadata.labels[k] === v)).toBe(true);
    expect(sm.spec.endpoints[0]).toMatchObject({ port: "metrics", path: "/metrics" });

    const pdb = one("PodDisruptionBudget", "supernode");
    expect(selects(pdb.spec.selector.matchLabels)).toBe(true);
    expect(pdb.spec.minAvailable ?? pdb.spec.maxUnavailable).toBeDefined();
  });

  it("the rendered ConfigMap plus the Secrets' variables is a valid supernode configuration", async () => {
    const cm = objects.find((o) => o.kind === "ConfigMap");
    const dir = await mkdtemp(join(tmpdir(), "sn-k8s-"));
    try {
      const jwt = join(dir, "jwt.hex");
      await writeFile(jwt, "11".repeat(32));
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? "",
        ...cm.data,
        SUPERNODE_VN_ALL_L2_ENGINE_AUTH: jwt, // the mounted Secret, here a temp file
        // What the `supernode-endpoints` Secret provides (see kustomization.yaml):
        SUPERNODE_L1: "http://127.0.0.1:1",
        SUPERNODE_L1_BEACON: "http://127.0.0.1:2",
        SUPERNODE_VN_10_L2_ENGINE_RPC: "http://127.0.0.1:3",
        SUPERNODE_VN_130_L2_ENGINE_RPC: "http://127.0.0.1:4",
        SUPERNODE_DATA_DIR: "/data",
      };
      const { stdout } = await run(process.execPath, [join(ROOT, "bin/supernode.js"), "config"], { env, cwd: dir });
      const cfg = JSON.parse(stdout);
      expect(cfg.chains).toEqual(String(cm.data.SUPERNODE_CHAINS).split(","));
      expect(cfg.metrics).toMatchObject({ enabled: true, port: 7300 });
      expect(cfg.rpc).toMatchObject({ addr: "0.0.0.0", port: 8545 });
      expect(stdout).not.toContain("11".repeat(32));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
