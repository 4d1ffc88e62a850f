import { join } from "node:path";
import { InteropActivity, type InteropStatus } from "../activities/interop/activity.js";
import type { InteropChain, L1Canonical } from "../activities/interop/ports.js";
import type { ChainConfig, SupernodeConfig } from "../config/types.js";
import { TemporaryError } from "../core/errors/supernode-error.js";
import type { Logger } from "../core/logger.js";
import type { Clock } from "../core/time/clock.js";
import type { BlockId } from "../core/types/block-ref.js";
import { ZERO_HASH } from "../core/types/primitives.js";
import type { SuperRootVerifier, VerifiedLookup } from "../activities/superroot.js";
import type { LogsStore } from "../io/db/interop/logs-store.js";
import { VerifiedStore } from "../io/db/interop/verified-store.js";
import type { L1Source, SuperAuthority } from "../node/ports.js";
import { createInteropMetrics } from "../observability/interop-metrics.js";
import type { SupernodeMetrics } from "../observability/metrics-registry.js";
import { makeDependencySet } from "../protocol/interop/dependency-set.js";
import type { ChainSupervisor } from "./chain-supervisor.js";

/**
 * The interop activity's wiring: its stores (`<data-dir>/interop/`: verified results, the write-ahead transition
 * and, in one sublevel per chain, each chain's logs), the super authority each chain's node defers to, and
 * the activity itself over the supervised chains.
 */
const ZERO_BLOCK: BlockId = { hash: ZERO_HASH, number: 0 };

export class InteropRuntime implements SuperRootVerifier {
  #activity: InteropActivity | undefined;
  #run: Promise<void> | undefined;

  private constructor(
    private readonly config: SupernodeConfig,
    readonly activation: number,
    private readonly verified: VerifiedStore,
    private readonly logs: Map<string, LogsStore>,
  ) {}

  /** Opens the stores when interop is scheduled; undefined when it is disabled. */
  static async open(config: SupernodeConfig, deps: { logger?: Logger } = {}): Promise<InteropRuntime | undefined> {
    const activation = config.interopActivationTimestamp;
    if (activation === undefined) return undefined;
    const verified = await VerifiedStore.open(join(config.dataDir, "interop"), deps);
    // Each chain's logs live in a sublevel of the same LevelDB, so a round commits in one batch.
    const logs = new Map<string, LogsStore>();
    try {
      for (const c of config.chainConfigs) {
        const id = c.chainId.toString(10);
        logs.set(id, await verified.logsStore(id));
      }
    } catch (err) {
      await verified.close();
      throw err;
    }
    return new InteropRuntime(config, activation, verified, logs);
  }

  /** What chain `chainId`'s node asks for its safe and finalized labels. */
  authorityFor(chainId: bigint): SuperAuthority {
    const id = chainId.toString(10);
    const head = (r: { l2Heads: Readonly<Record<string, BlockId>> } | undefined) => r?.l2Heads[id];
    return {
      isActiveAt: (ts) => ts >= this.activation,
      verifiedHead: async () => head(this.verified.last()),
      verifiedAtL1: async (n) => head(await this.verified.atL1(n)),
    };
  }

  /** The newest verified block of chain `chainId` (decimal); undefined when nothing is verified. */
  verifiedHeadOf(chainId: string): BlockId | undefined {
    return this.verified.last()?.l2Heads[chainId];
  }

  /**
   * `superroot_atTimestamp`'s view of the verifier at `ts` (op-supernode's regimes): hand-off before the activation,
   * before the first verifiable timestamp (the verified store's first, else the cold start's) and before the
   * activity chose it; else the verified entry, or pending.
   */
  async lookup(ts: number): Promise<VerifiedLookup> {
    if (ts < this.activation) return { regime: "handoff" };
    const first = this.verified.firstTimestamp() ?? this.#activity?.status().next_timestamp ?? undefined;
    if (first === undefined || ts < first) return { regime: "handoff" };
    const r = await this.verified.get(ts);
    return r === undefined ? { regime: "pending" } : { regime: "verified", ...r };
  }

  /**
   * The L1 block the verifier is still processing, as op-supernode keeps it: nothing yet before its first round;
   * while it works through timestamps already local-safe everywhere, the last verified one's L1 inclusion; while it
   * waits for the chains, undefined (their own current L1 says it).
   */
  currentL1(): BlockId | undefined {
    const a = this.#activity;
    // stalled: what it is stuck doing (waiting for the chains, or in a round) decides, as before the stall
    const st = a === undefined ? "starting" : a.state === "stalled" ? a.activeState : a.state;
    if (st === "waiting") return undefined;
    if (st === "starting" || st === "awaiting_safedb" || st === "backfilling") return ZERO_BLOCK;
    return this.verified.last()?.l1Inclusion ?? ZERO_BLOCK;
  }

  status(): InteropStatus | undefined {
    return this.#activity?.status();
  }

  /** Builds the activity over the supervised chains and runs it until `signal` aborts. */
  start(
    supervisors: ReadonlyMap<string, ChainSupervisor>,
    l1: L1Source,
    deps: { logger: Logger; clock: Clock; metrics: SupernodeMetrics; signal: AbortSignal },
  ): Promise<void> {
    const byId = new Map(this.config.chainConfigs.map((c) => [c.chainId.toString(10), c]));
    const chains = [...supervisors.entries()].map(([id, sup]) => interopChain(sup, byId.get(id) as ChainConfig));
    const canonical: L1Canonical = {
      async canonicalHash(n) {
        try {
          return (await l1.l1BlockRefByNumber(n)).hash;
        } catch {
          return undefined;
        }
      },
    };
    this.#activity = new InteropActivity(
      {
        activationTimestamp: this.activation,
        backfillDepthS: Math.floor(this.config.interopLogBackfillDepthMs / 1000),
        dependencySet: this.config.dependencySet ?? makeDependencySet(this.config.chains),
      },
      {
        chains,
        logs: this.logs,
        verified: this.verified,
        l1: canonical,
        clock: deps.clock,
        logger: deps.logger,
        metrics: createInteropMetrics(deps.metrics.registry),
      },
    );
    this.#run = this.#activity.run(deps.signal);
    return this.#run;
  }

  /** Closes the stores (after the loop ended). */
  async close(): Promise<void> {
    await this.#run?.catch(() => {});
    await this.verified.close();
    for (const s of this.logs.values()) await s.close();
  }
}

function notRunning(id: bigint): TemporaryError {
  return new TemporaryError("CHAIN_NOT_RUNNING", `chain ${id} is not running`);
}

/** The interop view of one supervised chain (undefined / temporary errors while it is between instances). */
function interopChain(sup: ChainSupervisor, chain: ChainConfig): InteropChain {
  const g = chain.rollup.genesis;
  const access = () => {
    const a = sup.current?.interop;
    if (a === undefined) throw notRunning(sup.chainId);
    return a;
  };
  return {
    chainId: sup.chainId,
    blockTime: chain.rollup.block_time,
    genesisTime: g.l2_time,
    numberAt: (ts) => g.l2.number + Math.floor((ts - g.l2_time) / chain.rollup.block_time),
    optimisticAt: async (ts) => sup.current?.blockAtTimestamp(ts),
    firstSafeTimestamp: async () => sup.current?.firstSafeTimestamp(),
    blockLogs: async (hash) => access().blockLogs(hash),
    blockLogsAt: async (n) => access().blockLogsAt(n),
    payloadByHash: async (hash) => access().payloadByHash(hash),
    invalidate: async (head, ts, payloads) => access().invalidate(head, ts, payloads),
    rewindEngine: async (target, payload) => access().rewindEngine(target, payload),
    pruneDenied: async (ts) => access().pruneDenied(ts),
  };
}
