import { join } from "node:path";
import type { ChainBlockAt, OutputV0 } from "../../../src/activities/ports.js";
import { ZERO_SYNC_STATUS } from "../../../src/activities/sync-status.js";
import type { ChainService, ChainServiceFactory } from "../../../src/app/chain-service.js";
import type { ChainRuntimes, SupernodeDeps } from "../../../src/app/supernode.js";
import type { ChainConfig, SupernodeConfig } from "../../../src/config/types.js";
import { silentLogger } from "../../../src/core/logger.js";
import type { SyncStatus } from "../../../src/core/types/block-ref.js";
import type { Hash } from "../../../src/core/types/primitives.js";
import type { NodeHealth } from "../../../src/node/health.js";
import { createMethodTable } from "../../../src/rpc/method-table.js";

/** Small in-memory chains for testing the supervision, the server and the activities without real nodes. */
export const hash = (n: number): Hash => `0x${n.toString(16).padStart(64, "0")}`;

export function statusAt(head: number, ts: number): SyncStatus {
  const ref = (n: number) => ({
    hash: hash(n),
    number: n,
    parentHash: hash(Math.max(0, n - 1)),
    timestamp: ts + n * 2,
    l1origin: { hash: hash(1000 + n), number: 1000 + n },
    sequenceNumber: 0,
  });
  return {
    ...ZERO_SYNC_STATUS,
    current_l1: { hash: hash(500 + head), number: 500 + head, parentHash: hash(499 + head), timestamp: ts },
    unsafe_l2: ref(head + 2),
    local_safe_l2: ref(head),
    safe_l2: ref(head),
    finalized_l2: ref(Math.max(0, head - 2)),
  };
}

export class FakeChainControl {
  /** Number of upcoming start attempts that fail (simulates an unreachable execution client). */
  failStarts = 0;
  head = 10;
  genesisTime = 1000;
  /** Timestamp of the oldest SafeDB entry's safe head (undefined: the genesis time; null: the SafeDB is empty). */
  firstSafeTime: number | null | undefined;
  /** What the live instance reports as its own health. */
  health: NodeHealth = { condition: "ok" };
  /** Outputs of blocks denied at a height (what `deniedOutputAt` answers). */
  readonly denied = new Map<number, OutputV0>();
  starts = 0;
  stops = 0;
  /** How often an instance was asked for its sync status. */
  statusReads = 0;
  live: FakeInstance | undefined;
  constructor(readonly chainId: bigint) {}

  factory: ChainServiceFactory = async () => {
    this.starts++;
    const inst = new FakeInstance(this);
    return inst;
  };
}

export class FakeInstance implements ChainService {
  exited: Promise<void>;
  #fail!: (err: Error) => void;
  #stopped = false;
  constructor(readonly ctl: FakeChainControl) {
    this.exited = new Promise<void>((_res, rej) => {
      this.#fail = rej;
    });
    this.exited.catch(() => {});
  }
  methods = createMethodTable({
    stack_syncStatus: async () => this.syncStatus(),
    stack_chainId: async () => this.ctl.chainId.toString(10),
    admin_stopSequencer: { handler: async () => null, admin: true },
  });
  async start(): Promise<void> {
    if (this.ctl.failStarts > 0) {
      this.ctl.failStarts--;
      throw new Error("engine unreachable");
    }
    this.ctl.live = this;
  }
  health(): NodeHealth {
    return this.ctl.health;
  }
  crash(err: Error = new Error("execution client connection lost")): void {
    this.#fail(err);
  }
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.ctl.stops++;
    if (this.ctl.live === this) this.ctl.live = undefined;
  }
  async syncStatus(): Promise<SyncStatus> {
    if (this.#stopped) throw new Error("virtual node not running");
    this.ctl.statusReads++;
    return statusAt(this.ctl.head, this.ctl.genesisTime);
  }
  async firstSafeTimestamp(): Promise<number | undefined> {
    const t = this.ctl.firstSafeTime;
    return t === null ? undefined : (t ?? this.ctl.genesisTime);
  }
  deniedOutputAt(height: number): OutputV0 | undefined {
    return this.ctl.denied.get(height);
  }
  /** The output of block `n` (≤ head) whose hash is `h`, as `blockAtTimestamp` makes them. */
  async outputAtHash(h: Hash): Promise<OutputV0 | undefined> {
    for (let n = 0; n <= this.ctl.head; n++) {
      const b = await this.blockAtTimestamp(this.ctl.genesisTime + 2 * n);
      if (b?.l2.hash === h) return b.output;
    }
    return undefined;
  }
  async blockAtTimestamp(ts: number): Promise<ChainBlockAt | undefined> {
    if (ts < this.ctl.genesisTime) throw new Error(`did not reach genesis time (${this.ctl.genesisTime}) yet`);
    const n = Math.floor((ts - this.ctl.genesisTime) / 2);
    if (n > this.ctl.head) return undefined;
    const tag = Number(this.ctl.chainId) * 1_000_000 + n;
    return {
      l2: { hash: hash(tag), number: n },
      output: { stateRoot: hash(tag + 1), messagePasserStorageRoot: hash(tag + 2), blockHash: hash(tag) },
      requiredL1: { hash: hash(2000 + n + Number(this.ctl.chainId)), number: 2000 + n + Number(this.ctl.chainId) },
    };
  }
}

export function fakeConfig(
  chains: readonly bigint[],
  over: { enableAdmin?: boolean; metrics?: boolean; chainMetrics?: readonly bigint[]; pprof?: boolean } = {},
): SupernodeConfig {
  const listen = (enabled: boolean) => ({ enabled, addr: "127.0.0.1", port: 0 });
  return {
    chains,
    dataDir: "/nonexistent",
    l1: "http://127.0.0.1:1",
    l1BeaconFallbacks: [],
    l1HttpPollIntervalMs: 12_000,
    disableP2p: true,
    interopLogBackfillDepthMs: 0,
    // requests to a restarting chain answer at once (the readiness gate has its own tests: rpc/ready-gate.test.ts)
    rpc: { addr: "127.0.0.1", port: 0, enableAdmin: over.enableAdmin ?? false, chainReadyWaitMs: 0 },
    log: { level: "info", format: "text", color: false },
    metrics: listen(over.metrics ?? false),
    pprof: listen(over.pprof ?? false),
    chainConfigs: chains.map(
      (chainId) =>
        ({ chainId, metrics: listen(over.chainMetrics?.includes(chainId) ?? false) }) as unknown as ChainConfig,
    ),
    options: {},
  };
}

/**
 * `fakeConfig` with interop: the data directory `dir` (each chain under `chain-<id>/`), activation at `activation`,
 * each chain's rollup config from `rollupOf`, and the log backfill depth.
 */
export function fakeInteropConfig(
  chains: readonly bigint[],
  dir: string,
  o: { activation: number; rollupOf: (id: bigint) => unknown; backfillDepthMs?: number },
): SupernodeConfig {
  const base = fakeConfig(chains, { metrics: true });
  return {
    ...base,
    dataDir: dir,
    interopActivationTimestamp: o.activation,
    interopLogBackfillDepthMs: o.backfillDepthMs ?? 0,
    chainConfigs: base.chainConfigs.map(
      (c) =>
        ({ ...c, dataDir: join(dir, `chain-${c.chainId}`), rollup: o.rollupOf(c.chainId) }) as unknown as ChainConfig,
    ),
  };
}

/** Deterministic stand-in hashing (the real one is tested in the protocol layer). */
export const fakeHashing: SupernodeDeps["hashing"] = {
  outputRoot: (o) => o.blockHash,
  superRoot: (ts, chains) => hash(ts + chains.length),
};

export function fakeRuntimes(ctls: readonly FakeChainControl[]): SupernodeDeps["buildChains"] {
  return async (): Promise<ChainRuntimes> => ({
    factories: new Map(ctls.map((c) => [c.chainId, c.factory])),
    close: async () => {},
  });
}

export const fastSupervisor = {
  initialBackoffMs: 50,
  maxBackoffMs: 200,
  stableAfterMs: 60_000,
  stopTimeoutMs: 2_000,
  healthCheckMs: 20,
};
export const testLogger = silentLogger;

export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function rpc(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}
