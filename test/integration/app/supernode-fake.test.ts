import { afterEach, describe, expect, it } from "vitest";
import type { SuperRootResult } from "../../../src/activities/superroot.js";
import { Supernode } from "../../../src/app/supernode.js";
import { CriticalError } from "../../../src/core/errors/supernode-error.js";
import {
  FakeChainControl,
  fakeConfig,
  fakeHashing,
  fakeRuntimes,
  fastSupervisor,
  hash,
  rpc,
  testLogger,
  waitFor,
} from "./fake-chains.js";

let node: Supernode | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

async function start(ctls: FakeChainControl[], over: Parameters<typeof fakeConfig>[1] = {}) {
  node = await Supernode.start(
    fakeConfig(
      ctls.map((c) => c.chainId),
      over,
    ),
    {
      logger: testLogger,
      buildChains: fakeRuntimes(ctls),
      hashing: fakeHashing,
      supervisor: fastSupervisor,
    },
  );
  await waitFor(() => [...node!.supervisors.values()].every((s) => s.state === "running"));
  return node;
}

/** Parses the Prometheus text format into {name, labels, value} samples. */
function parseProm(text: string) {
  const out: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`bad exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[4]) });
  }
  return out;
}

describe("Supernode with fake chains", () => {
  it("routes per chain and serves the activity methods at /", async () => {
    const a = new FakeChainControl(10n);
    const b = new FakeChainControl(420n);
    b.head = 6;
    const sn = await start([a, b]);
    expect((await rpc(`${sn.rpc.url}/10/`, "stack_chainId")).result).toBe("10");
    expect((await rpc(`${sn.rpc.url}/420`, "stack_chainId")).result).toBe("420");

    const hb = (await rpc(`${sn.rpc.url}/`, "heartbeat_check")).result as string;
    expect(hb).toMatch(/^0x[0-9a-f]{8}$/);

    const status = (await rpc(`${sn.rpc.url}/`, "supernode_syncStatus")).result as Record<string, unknown>;
    expect(status.chain_ids).toEqual(["10", "420"]);
    expect(status.current_l1).toEqual({ hash: hash(506), number: 506 });
    expect(status.local_safe_timestamp).toBe(1000 + 6 * 2);
    expect(status.finalized_timestamp).toBe(1000 + 4 * 2);
    expect(status.chain_states).toEqual({ "10": { state: "running" }, "420": { state: "running" } });
    expect(Object.keys(status.chains as object)).toEqual(["10", "420"]);

    const modules = (await rpc(`${sn.rpc.url}/`, "rpc_modules")).result;
    expect(modules).toEqual({ health: "1.0", heartbeat: "1.0", rpc: "1.0", superroot: "1.0", supernode: "1.0" });
  });

  it("answers superroot_atTimestamp with data only when every chain has the block", async () => {
    const a = new FakeChainControl(10n);
    const b = new FakeChainControl(420n);
    b.head = 3;
    const sn = await start([a, b]);
    const ok = (await rpc(`${sn.rpc.url}/`, "superroot_atTimestamp", ["0x3ee"])).result as SuperRootResult;
    // ts 1006 → block 3 on both chains
    expect(ok.chain_ids).toEqual(["10", "420"]);
    expect(Object.keys(ok.optimistic_at_timestamp)).toEqual(["10", "420"]);
    expect(ok.data?.super).toEqual({
      timestamp: "0x3ee",
      chains: [
        { ChainID: "10", Output: hash(10_000_003) },
        { ChainID: "420", Output: hash(420_000_003) },
      ],
    });
    expect(ok.data?.verified_required_l1.number).toBe(2000 + 3 + 420);
    expect(ok.data?.super_root).toBe(hash(1006 + 2));

    const partial = (await rpc(`${sn.rpc.url}/`, "superroot_atTimestamp", ["0x3f2"])).result as SuperRootResult;
    expect(partial.data).toBeUndefined();
    expect(Object.keys(partial.optimistic_at_timestamp)).toEqual(["10"]);

    for (const bad of [1006, "0x03ee", "3ee", []]) {
      const r = await rpc(`${sn.rpc.url}/`, "superroot_atTimestamp", Array.isArray(bad) ? bad : [bad]);
      expect(r.error?.code).toBe(-32602);
    }
    const pre = await rpc(`${sn.rpc.url}/`, "superroot_atTimestamp", ["0x1"]);
    expect(pre.error?.code).toBe(-32603);
  });

  it("superroot_atTimestamp: a height where a block was denied shows the denied block's output as optimistic", async () => {
    const a = new FakeChainControl(10n);
    const denied = { stateRoot: hash(7), messagePasserStorageRoot: hash(8), blockHash: hash(9) };
    a.denied.set(3, denied);
    const sn = await start([a]);
    const r = (await rpc(`${sn.rpc.url}/`, "superroot_atTimestamp", ["0x3ee"])).result as SuperRootResult;
    // optimistically the block would not have been replaced (op-supernode's OptimisticOutputAtTimestamp); the
    // required L1 stays the local-safe block's
    expect(r.optimistic_at_timestamp["10"]?.output).toEqual(denied);
    expect(r.optimistic_at_timestamp["10"]?.required_l1.number).toBe(2000 + 3 + 10);
  });

  it("gates admin methods", async () => {
    const sn = await start([new FakeChainControl(10n)]);
    expect((await rpc(`${sn.rpc.url}/10/`, "admin_stopSequencer")).error?.code).toBe(-32601);
    await sn.stop();
    node = undefined;
    const sn2 = await start([new FakeChainControl(10n)], { enableAdmin: true });
    expect(await rpc(`${sn2.rpc.url}/10/`, "admin_stopSequencer")).toMatchObject({ result: null });
  });

  it("a chain that has never started answers -32000 'not running' with its state, without internal endpoints", async () => {
    const a = new FakeChainControl(10n);
    const b = new FakeChainControl(420n);
    b.failStarts = 1_000_000;
    const endpointError = new Error("connect ECONNREFUSED 127.0.0.1:18652");
    b.factory = async () => {
      b.starts++;
      throw endpointError;
    };
    node = await Supernode.start(fakeConfig([10n, 420n]), {
      logger: testLogger,
      buildChains: fakeRuntimes([a, b]),
      hashing: fakeHashing,
      supervisor: fastSupervisor,
    });
    const sn = node;
    await waitFor(() => b.starts >= 2 && sn.supervisors.get("10")!.state === "running");
    for (const method of ["stack_syncStatus", "stack_outputAtBlock", "optimism_outputAtBlock"]) {
      const r = (await rpc(`${sn.rpc.url}/420/`, method)) as {
        error?: { code: number; message: string; data?: unknown };
      };
      expect(r.error?.code, method).toBe(-32000);
      expect(r.error?.message).toMatch(/^chain 420 is not running \(/);
      expect(r.error?.data).toMatchObject({ state: expect.any(String) });
      expect(JSON.stringify(r)).not.toContain("127.0.0.1");
    }
    expect((await rpc(`${sn.rpc.url}/10/`, "stack_chainId")).result).toBe("10");
    // /readyz and chain_states carry the reason, but not the endpoint
    const ready = await (await fetch(`${sn.rpc.url}/readyz`)).text();
    expect(ready).toContain("ECONNREFUSED <endpoint>");
    expect(ready).not.toContain("127.0.0.1");
    expect(JSON.stringify(await rpc(`${sn.rpc.url}/`, "supernode_syncStatus"))).not.toContain("127.0.0.1");
  });

  it("restarts a failed chain with backoff while the others keep serving", async () => {
    const a = new FakeChainControl(10n);
    const b = new FakeChainControl(420n);
    const sn = await start([a, b], { metrics: true });
    b.failStarts = 2;
    b.live!.crash();
    await waitFor(() => sn.supervisors.get("420")!.state !== "running");
    // chain 10 keeps serving while 420 is down
    expect((await rpc(`${sn.rpc.url}/10/`, "stack_chainId")).result).toBe("10");
    const down = await rpc(`${sn.rpc.url}/420/`, "stack_chainId");
    expect(down.error?.code).toBe(-32000);
    expect(down.error?.message).toContain("chain 420 is not running");
    const ready = await fetch(`${sn.rpc.url}/readyz`);
    expect(ready.status).toBe(503);
    // aggregated status still answers, with the last good status of 420
    const st = (await rpc(`${sn.rpc.url}/`, "supernode_syncStatus")).result as {
      chain_states: Record<string, { state: string; reason?: string }>;
    };
    expect(st.chain_states["10"]).toEqual({ state: "running" });
    expect(st.chain_states["420"]?.state).not.toBe("running");
    expect(st.chain_states["420"]?.reason).toBeTruthy();

    await waitFor(() => sn.supervisors.get("420")!.state === "running");
    expect(b.starts).toBe(4);
    expect((await rpc(`${sn.rpc.url}/420/`, "stack_chainId")).result).toBe("420");
    expect((await fetch(`${sn.rpc.url}/readyz`)).status).toBe(200);
    expect(sn.supervisors.get("420")!.health().restarts).toBe(3);

    const samples = parseProm(await (await fetch(sn.metricsServer!.url)).text());
    const restarts = samples.find((s) => s.name === "supernode_chain_restarts_total" && s.labels.chain_id === "420");
    expect(restarts?.value).toBe(3);
  });

  it("shows a degraded or stalled chain with its reason in /readyz, chain_states and the metrics, and recovers", async () => {
    const a = new FakeChainControl(10n);
    const b = new FakeChainControl(420n);
    const sn = await start([a, b], { metrics: true });
    const ready = async () =>
      parseProm(await (await fetch(sn.metricsServer!.url)).text())
        .filter((s) => s.name === "supernode_chain_ready")
        .map((s) => `${s.labels.chain_id}=${s.value}`)
        .sort();
    expect(await ready()).toEqual(["10=1", "420=1"]);

    b.health = { condition: "degraded", reason: "failing for 12s: RPC_NETWORK: engine_forkchoiceUpdatedV3: refused" };
    await waitFor(() => sn.supervisors.get("420")!.state === "degraded");
    const r = await fetch(`${sn.rpc.url}/readyz`);
    expect(r.status).toBe(503);
    const body = (await r.json()) as { ready: boolean; chains: Record<string, { state: string; reason?: string }> };
    expect(body.chains["10"]).toMatchObject({ state: "running", ready: true });
    expect(body.chains["420"]).toMatchObject({ state: "degraded", ready: false, reason: b.health.reason });
    const st = (await rpc(`${sn.rpc.url}/`, "supernode_syncStatus")).result as {
      chain_states: Record<string, unknown>;
    };
    expect(st.chain_states).toEqual({
      "10": { state: "running" },
      "420": { state: "degraded", reason: b.health.reason },
    });
    expect(await ready()).toEqual(["10=1", "420=0"]);
    // a degraded chain keeps serving its methods
    expect((await rpc(`${sn.rpc.url}/420/`, "stack_chainId")).result).toBe("420");

    b.health = { condition: "stalled", reason: "no progress for 60s while L1 advanced 5 blocks" };
    await waitFor(() => sn.supervisors.get("420")!.state === "stalled");
    expect(sn.supervisors.get("420")!.reason).toBe(b.health.reason);

    b.health = { condition: "ok" };
    await waitFor(() => sn.supervisors.get("420")!.state === "running");
    expect((await fetch(`${sn.rpc.url}/readyz`)).status).toBe(200);
    expect(await ready()).toEqual(["10=1", "420=1"]);
    expect(a.starts).toBe(1);
    expect(b.starts).toBe(1);
  });

  it("a critical error fails the chain without a restart; the others keep serving", async () => {
    const a = new FakeChainControl(10n);
    const b = new FakeChainControl(420n);
    const sn = await start([a, b], { metrics: true });
    b.live!.crash(new CriticalError("SAFEDB_CORRUPT", "SafeDB at /data/chain-420/safedb is corrupted"));
    await waitFor(() => sn.supervisors.get("420")!.state === "failed");
    expect(sn.supervisors.get("420")!.reason).toBe("SAFEDB_CORRUPT: SafeDB at /data/chain-420/safedb is corrupted");
    const body = (await (await fetch(`${sn.rpc.url}/readyz`)).json()) as { ready: boolean };
    expect(body.ready).toBe(false);
    const down = await rpc(`${sn.rpc.url}/420/`, "stack_chainId");
    expect(down.error?.message).toContain("chain 420 is not running (failed; SAFEDB_CORRUPT");
    expect((await rpc(`${sn.rpc.url}/10/`, "stack_chainId")).result).toBe("10");
    expect(sn.supervisors.get("420")!.health()).toMatchObject({ restarts: 0, ready: false });
    expect(b.stops).toBe(1);
  });

  it("exports labelled metrics on the shared endpoint and per-chain endpoints", async () => {
    const a = new FakeChainControl(10n);
    const b = new FakeChainControl(420n);
    const sn = await start([a, b], { metrics: true, chainMetrics: [420n] });
    await rpc(`${sn.rpc.url}/10/`, "stack_syncStatus");
    await rpc(`${sn.rpc.url}/420/`, "nope_nope");
    await rpc(`${sn.rpc.url}/`, "heartbeat_check");
    const res = await fetch(sn.metricsServer!.url);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const samples = parseProm(await res.text());
    const find = (name: string, labels: Record<string, string>) =>
      samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    expect(
      find("supernode_rpc_requests_total", { chain_id: "10", method: "stack_syncStatus", status: "ok" })?.value,
    ).toBe(1);
    expect(find("supernode_rpc_requests_total", { chain_id: "420", method: "unknown", status: "-32601" })?.value).toBe(
      1,
    );
    expect(find("supernode_rpc_requests_total", { chain_id: "supernode", method: "heartbeat_check" })?.value).toBe(1);
    expect(find("supernode_chain_state", { chain_id: "10", state: "running" })?.value).toBe(1);
    expect(find("supernode_chain_head", { chain_id: "420", head: "unsafe" })?.value).toBe(12);
    expect(find("supernode_activity_up", { activity: "heartbeat" })?.value).toBe(1);
    expect(find("supernode_info", { version: "v0.1.0" })?.value).toBe(1);
    expect(samples.some((s) => s.name.startsWith("supernode_process_"))).toBe(true);

    const chainOnly = parseProm(await (await fetch(sn.chainMetricsServers[0]!.url)).text());
    expect(chainOnly.length).toBeGreaterThan(0);
    expect(chainOnly.every((s) => s.labels.chain_id === "420")).toBe(true);
    expect((await fetch(sn.metricsServer!.url.replace("/metrics", "/other"))).status).toBe(404);
  });

  it("stops cleanly: every chain instance stopped, servers closed", async () => {
    const a = new FakeChainControl(10n);
    const b = new FakeChainControl(420n);
    const sn = await start([a, b], { metrics: true, pprof: true });
    const url = sn.rpc.url;
    await sn.stop();
    node = undefined;
    expect(a.stops).toBe(1);
    expect(b.stops).toBe(1);
    expect([...sn.supervisors.values()].every((s) => s.state === "stopped")).toBe(true);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    await sn.stop(); // idempotent
  });
});
