/**
 * The sequencer of one virtual node (op-node §5): the admin state machine with its persisted state, recover mode,
 * and the block-building step the node's driver loop calls (a block every `block_time`, origin selection within
 * the drift rules, deposits and — unless forbidden — the pool, published to the unsafe-block sink).
 */
import { hexToBytes } from "../../core/codec/hex.js";
import type { Logger } from "../../core/logger.js";
import type { Clock } from "../../core/time/clock.js";
import type { Hash } from "../../core/types/primitives.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import { isForkActive, type RollupConfig } from "../../protocol/rollup-config.js";
import type { SdmStatus } from "../chain-view.js";
import type { AttributesBuilder } from "../derivation/types.js";
import { DeniedPayloadError, type EngineController } from "../engine/engine-controller.js";
import type { ChainMetrics } from "../metrics.js";
import { withoutExcluded } from "../denied-txs.js";
import type {
  ExecutionPayloadEnvelope,
  L1Source,
  PayloadAttributes,
  SequencerStateStore,
  UnsafeBlockSink,
} from "../ports.js";
import { selectNextOrigin, sequencerNoTxPool } from "./origin-selector.js";
import { SequencerState } from "./sequencer-state.js";

/** `--vn.<id>.sequencer.*`. */
export interface SequencerConfig {
  readonly enabled: boolean;
  readonly stopped: boolean;
  readonly l1Confs: number;
  readonly maxSafeLag: number;
  readonly recoverMode: boolean;
  readonly sealingDurationMs?: number;
}

export interface SequencerDriverDeps {
  readonly rollup: RollupConfig;
  readonly l1: L1Source;
  readonly controller: EngineController;
  readonly attributesBuilder: AttributesBuilder;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: ChainMetrics | undefined;
  readonly sink?: UnsafeBlockSink | undefined;
  readonly store?: SequencerStateStore | undefined;
  /** Interop: non-deposit transactions of denied blocks, never included again. */
  readonly excludedTxs?: (() => ReadonlySet<Hash>) | undefined;
  /** Interop: a height not to build while derivation still owes the replacement of a block denied there. */
  readonly holdAt?: ((localSafe: number) => number | undefined) | undefined;
}

export class SequencerDriver {
  private readonly state: SequencerState;
  private recover: boolean;
  /** `admin_setSdmPostExecOptIn` (persisted in the store, as op-node keeps it in its admin-state file). */
  private sdmOptIn: boolean;

  constructor(
    private readonly cfg: SequencerConfig,
    private readonly d: SequencerDriverDeps,
  ) {
    this.state = new SequencerState(cfg.enabled, !cfg.stopped);
    this.recover = cfg.recoverMode;
    this.sdmOptIn = false;
  }

  /** Applies the persisted start/stop state (it overrides `--sequencer.stopped`). */
  async loadPersisted(): Promise<void> {
    if (!this.cfg.enabled || this.d.store === undefined) return;
    const persisted = await this.d.store.load();
    if (persisted === true) this.state.confirmStart();
    else if (persisted === false) this.state.confirmStop();
    this.sdmOptIn = (await this.d.store.loadSdmOptIn()) ?? false;
  }

  get active(): boolean {
    return this.state.active;
  }

  get recoverMode(): boolean {
    return this.recover;
  }

  /** Wall-clock time (ms) at which the next block should be sealed. */
  nextDueMs(): number {
    const u = this.d.controller.heads.unsafe;
    return (u.timestamp + this.d.rollup.block_time) * 1000 - (this.cfg.sealingDurationMs ?? 50);
  }

  due(): boolean {
    return this.state.active && this.d.clock.nowMs() >= this.nextDueMs();
  }

  /** Builds, inserts and publishes the next block when due; `ready` = the node has heads and is not EL syncing. */
  async step(ready: boolean): Promise<boolean> {
    if (!ready || !this.due()) return false;
    const controller = this.d.controller;
    const h = controller.heads;
    const lag = this.cfg.maxSafeLag;
    if (lag > 0 && h.unsafe.number >= h.safe.number + lag) return false;
    const parent = h.unsafe;
    const hold = this.d.holdAt?.(h.localSafe.number);
    if (hold !== undefined && parent.number < hold) return false;
    const origin = await selectNextOrigin(this.d.rollup, this.d.l1, parent, {
      l1Confs: this.cfg.l1Confs,
      recover: this.recover,
    });
    const prepared = await this.d.attributesBuilder.prepare(parent, origin);
    const ts = prepared.attributes.fields.timestamp;
    const attributes: PayloadAttributes = {
      fields: {
        ...prepared.attributes.fields,
        noTxPool: sequencerNoTxPool(this.d.rollup, ts, prepared.l1origin, this.recover),
      },
      txBytes: prepared.attributes.txBytes,
    };
    const excluded = this.d.excludedTxs?.();
    const built = await controller
      .buildAndInsert(
        attributes,
        parent,
        { l1origin: prepared.l1origin, sequenceNumber: prepared.sequenceNumber },
        excluded === undefined || excluded.size === 0
          ? {}
          : { rebuildWith: (sealed) => this.withoutDenied(attributes, sealed, excluded) },
      )
      .catch((err: unknown) => {
        if (err instanceof DeniedPayloadError) return undefined; // a denied block again: never inserted
        throw err;
      });
    if (built === undefined) {
      this.d.logger.warn({ parent: parent.number }, "sequencer: block building failed; retrying next block time");
      return false;
    }
    await controller.flushForkchoice();
    this.d.metrics?.sequencedBlocks.inc();
    try {
      this.d.sink?.publish(built.envelope); // hands the block over; never waited on
    } catch (err) {
      this.d.logger.warn({ err: String(err) }, "publishing the sequenced block failed");
    }
    return true;
  }

  /** The attributes again with the sealed pool transactions forced minus denied ones; undefined when none is there. */
  private withoutDenied(
    attributes: PayloadAttributes,
    sealed: ExecutionPayloadEnvelope,
    excluded: ReadonlySet<Hash>,
  ): PayloadAttributes | undefined {
    const pool = sealed.executionPayload.transactions.slice(attributes.txBytes.length);
    const kept = withoutExcluded(pool, excluded);
    if (kept === undefined) return undefined;
    this.d.logger.warn(
      { number: sealed.executionPayload.blockNumber, left_out: pool.length - kept.length },
      "sequencer: leaving denied transactions out of the block",
    );
    return {
      fields: { ...attributes.fields, noTxPool: true },
      txBytes: [...attributes.txBytes, ...kept.map((t) => hexToBytes(t))],
    };
  }

  /** `admin_startSequencer`: `head` is undefined while the node has no heads yet ("no prestate"). */
  async start(head: L2BlockRef | undefined, expected?: Hash): Promise<void> {
    this.state.checkStart(head, expected);
    await this.d.store?.save(true);
    this.state.confirmStart();
    this.d.logger.info({ head: head?.number }, "sequencer started");
  }

  /** `admin_stopSequencer`: returns the unsafe head hash to restart from. */
  async stop(): Promise<Hash> {
    this.state.checkStop();
    await this.d.store?.save(false);
    this.state.confirmStop();
    const head = this.d.controller.heads.unsafe;
    this.d.logger.info({ head: head.number }, "sequencer stopped");
    return head.hash;
  }

  /**
   * `admin_setSdmPostExecOptIn`: the operator's wish for PostExec (SDM) sequencing; needs the sequencer. Persisted
   * (a failed write fails the call and changes nothing), loaded again at start.
   */
  async setSdmPostExecOptIn(on: boolean): Promise<void> {
    this.state.requireEnabled();
    await this.d.store?.saveSdmOptIn(on); // durable before it takes effect (and before the call is answered)
    if (on !== this.sdmOptIn) this.d.logger.info({ sdmPostExecOptIn: on }, "sequencer SDM PostExec opt-in set");
    this.sdmOptIn = on;
  }

  /**
   * `admin_sdmStatus` for the next block after `unsafeHead` (op-node): the opt-in, whether Sequencer-Defined Metering
   * (Lagoon) is active at that block, both, and the activation time when scheduled. Needs the sequencer.
   */
  sdmStatus(unsafeHead: L2BlockRef): SdmStatus {
    this.state.requireEnabled();
    const protocolActive = isForkActive(this.d.rollup, "lagoon", unsafeHead.timestamp + this.d.rollup.block_time);
    const at = this.d.rollup.lagoon_time;
    return {
      postExecOptIn: this.sdmOptIn,
      protocolActive,
      effective: this.sdmOptIn && protocolActive,
      ...(at === undefined ? {} : { activationTime: at }),
    };
  }

  /** `admin_setRecoverMode`: a no-op without the sequencer (as op-node). */
  setRecoverMode(on: boolean): void {
    if (!this.state.enabled) return;
    if (on !== this.recover) this.d.logger.info({ recoverMode: on }, "sequencer recover mode set");
    this.recover = on;
  }
}
