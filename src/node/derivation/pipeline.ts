/**
 * The L1 → L2 derivation pipeline of one chain (op-node §2.0–§2.9): L1 traversal (origin advance, reorg detection
 * by parent hash, SystemConfig updates from receipts), L1 retrieval (calldata and blob sources with batcher
 * authentication), frame queue (Holocene pruning), channel bank / Holocene channel assembler, channel reader,
 * batch queue / Holocene batch stage, and the attributes queue. The pure stages come from `protocol/derive`;
 * this class feeds them L1 data and turns accepted batches into payload attributes.
 */
import { DEPOSIT_TX_TYPE } from "../../protocol/l2/deposit-tx.js";
import { hexToBytes } from "../../core/codec/hex.js";
import { CriticalError, DecodeError, ResetError, severityOf } from "../../core/errors/supernode-error.js";
import { type Logger, logsAt } from "../../core/logger.js";
import type { L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import { BatchQueue } from "../../protocol/derive/batch-queue.js";
import type { BatchSource, InputBatch } from "../../protocol/derive/batch-stage-base.js";
import { BatchStage } from "../../protocol/derive/batch-stage.js";
import type { SafeBlockLookup } from "../../protocol/derive/batch-validity.js";
import { spanLastTimestamp, spanStartTimestamp } from "../../protocol/derive/batch-span.js";
import { channelTimeout, isHoloceneDerivation } from "../../protocol/derive/chain-spec.js";
import { ChannelAssembler } from "../../protocol/derive/channel-assembler.js";
import { ChannelBank } from "../../protocol/derive/channel-bank.js";
import { type ChannelBatches, channelReaderOptions, openChannel } from "../../protocol/derive/channel-reader.js";
import { type Frame, parseFrames, pruneFrameQueue } from "../../protocol/derive/frame.js";
import { type BatcherDataItem, selectBatcherEntries } from "../../protocol/l1/batcher-tx.js";
import { decodeBlob } from "../../protocol/l1/blob.js";
import { applySystemConfigReceipts } from "../../protocol/l1/system-config.js";
import { isForkActive, type RollupConfig, type SystemConfig } from "../../protocol/rollup-config.js";
import type { DerivedAttributes } from "../engine/engine-controller.js";
import type { BlobSource, ExecutionEngine, ExecutionPayloadEnvelope, L1Source } from "../ports.js";
import { receiptsOf, txsTo } from "./l1-slices.js";
import type { AttributesBuilder, DerivationPipeline, StepResult } from "./types.js";

export interface PipelineDeps {
  readonly cfg: RollupConfig;
  readonly l1: L1Source;
  readonly blobs?: BlobSource | undefined;
  readonly engine: ExecutionEngine;
  readonly builder: AttributesBuilder & { systemConfigOf(parent: L2BlockRef): Promise<SystemConfig> };
  readonly refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef;
  readonly logger: Logger;
  /** `--verifier.l1-confs`: blocks with `number + confs > head` are not read yet. */
  readonly l1Confs: number;
}

export class L1DerivationPipeline implements DerivationPipeline {
  private originRef: L1BlockRef;
  private sysCfg: SystemConfig;
  /** Data items of the current origin not yet parsed (undefined: not loaded yet). */
  private items: Uint8Array[] | undefined;
  private frames: Frame[] = [];
  private bank: ChannelBank | undefined;
  private assembler: ChannelAssembler | undefined;
  /** The channel being read: its batches are decoded as the batch stage takes them (docs/performance.md). */
  private channel: ChannelBatches | undefined;
  private stage: BatchQueue | BatchStage;
  private readonly l2Cache = new Map<number, { ref: L2BlockRef; transactions: Uint8Array[] }>();
  private readonly d: PipelineDeps;
  private readonly source: BatchSource = new PipelineSource(this);

  constructor(deps: PipelineDeps) {
    this.d = deps;
    const g = deps.cfg.genesis;
    this.originRef = { hash: g.l1.hash, number: g.l1.number, parentHash: g.l1.hash, timestamp: 0 };
    this.sysCfg = g.system_config;
    this.stage = new BatchQueue(deps.cfg, this.originRef);
    this.configureStages();
  }

  get origin(): L1BlockRef {
    return this.originRef;
  }

  private holocene(): boolean {
    return isHoloceneDerivation(this.d.cfg, this.originRef.timestamp);
  }

  /** Picks the pre-Holocene or Holocene channel/batch stages for the current origin (the Holocene transform). */
  private configureStages(): void {
    if (this.holocene()) {
      if (this.assembler === undefined) {
        this.assembler = new ChannelAssembler(this.d.cfg, this.originRef);
        this.bank = undefined;
        this.frames = [];
      }
      if (!(this.stage instanceof BatchStage)) this.stage = BatchStage.fromBatchQueue(this.stage, this.d.cfg);
    } else if (this.bank === undefined) {
      this.bank = new ChannelBank(this.d.cfg, this.originRef);
      this.assembler = undefined;
    }
  }

  // ------------------------------------------------------------------------------------------------------------
  // Reset

  async reset(safeHead: L2BlockRef): Promise<void> {
    const cfg = this.d.cfg;
    // Replay one channel timeout of L1 before the safe head's origin so open channels are rebuilt (§2.11).
    const safeOrigin = await this.d.l1.l1BlockRefByHash(safeHead.l1origin.hash);
    const back = channelTimeout(cfg, safeOrigin.timestamp);
    const startNumber = Math.max(cfg.genesis.l1.number, safeOrigin.number - back);
    let start = startNumber === safeOrigin.number ? safeOrigin : await this.d.l1.l1BlockRefByNumber(startNumber);
    // The config in force at the start: the one of the last L2 block with an origin at or below `start`.
    let sysRef = safeHead;
    while (sysRef.number > cfg.genesis.l2.number && sysRef.l1origin.number > start.number) {
      const parent = await this.d.engine.l2BlockRefByHash(sysRef.parentHash);
      if (parent === undefined) break;
      sysRef = parent;
    }
    if (sysRef.l1origin.number < start.number) start = await this.d.l1.l1BlockRefByHash(sysRef.l1origin.hash);
    this.sysCfg = await this.d.builder.systemConfigOf(sysRef);
    this.originRef = start;
    this.items = undefined;
    this.frames = [];
    this.channel = undefined;
    this.bank = undefined;
    this.assembler = undefined;
    this.l2Cache.clear();
    this.stage = new BatchQueue(cfg, start);
    this.configureStages();
    this.stage.reset(start);
  }

  // ------------------------------------------------------------------------------------------------------------
  // L1 traversal and retrieval

  /** Moves to the next L1 block; false when it is not available (yet). */
  private async advanceOrigin(): Promise<boolean> {
    const l1 = this.d.l1;
    const head = l1.getLabel?.("latest") ?? (await l1.l1BlockRefByLabel("latest"));
    const n = this.originRef.number + 1;
    if (n + this.d.l1Confs > head.number) return false;
    let next: L1BlockRef;
    try {
      next = await l1.l1BlockRefByNumber(n);
    } catch (err) {
      if (severityOf(err) === "temporary") return false;
      throw err;
    }
    if (next.parentHash !== this.originRef.hash) {
      throw new ResetError("L1_REORG", "detected L1 reorg", { number: n, expectedParent: this.originRef.hash });
    }
    const sysAddr = this.d.cfg.l1_system_config_address;
    const [receipts = []] = (await receiptsOf(l1, next.hash, [sysAddr])).receipts;
    const res = applySystemConfigReceipts(
      this.sysCfg,
      receipts,
      this.d.cfg.l1_system_config_address,
      isForkActive(this.d.cfg, "ecotone", next.timestamp),
    );
    for (const s of res.skipped) this.d.logger.warn({ logIndex: s.logIndex, err: s.error.message }, "bad ConfigUpdate");
    this.sysCfg = res.config;
    this.originRef = next;
    this.items = undefined;
    this.configureStages();
    this.bank?.setOrigin(next);
    this.assembler?.setOrigin(next);
    return true;
  }

  private async loadItems(): Promise<void> {
    const cfg = this.d.cfg;
    const origin = this.originRef;
    const entries = await txsTo(this.d.l1, origin.hash, cfg.batch_inbox_address).catch((err: unknown) => {
      // The origin is gone (an L1 reorg replaced it before its data was read): reset, as op-node's data sources do.
      if ((err as { code?: string }).code !== "NOT_FOUND") throw err;
      throw new ResetError("L1_ORIGIN_NOT_FOUND", "L1 origin not found", { origin: origin.hash }, err);
    });
    const blobs = isForkActive(cfg, "ecotone", origin.timestamp);
    const selected = selectBatcherEntries(entries, {
      batchInbox: cfg.batch_inbox_address,
      batcherAddr: this.sysCfg.batcherAddr,
      l1ChainId: cfg.l1_chain_id,
      blobs,
    });
    const blobItems = selected.filter((i): i is Extract<BatcherDataItem, { kind: "blob" }> => i.kind === "blob");
    let blobData: Uint8Array[] = [];
    if (blobItems.length > 0) {
      if (this.d.blobs === undefined) throw new CriticalError("NO_BEACON", "blob data needs a beacon endpoint");
      try {
        blobData = await this.d.blobs.getBlobs(
          origin,
          blobItems.map((b, index) => ({ index, hash: b.versionedHash })),
        );
      } catch (err) {
        if (severityOf(err) === "critical") throw new ResetError("MISSING_BLOBS", "blobs not available", {}, err);
        throw err;
      }
    }
    const out: Uint8Array[] = [];
    let bi = 0;
    for (const item of selected) {
      if (item.kind === "calldata") {
        out.push(item.data);
        continue;
      }
      const blob = blobData[bi++];
      if (blob === undefined) continue;
      try {
        out.push(decodeBlob(blob));
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        this.d.logger.warn({ origin: origin.number, err: err.message }, "ignoring a blob that fails to decode");
      }
    }
    this.items = out;
    if (out.length > 0) this.d.logger.debug({ origin: origin.number, items: out.length }, "batcher data");
  }

  // ------------------------------------------------------------------------------------------------------------
  // BatchSource (synchronous view of the current origin's data for the batch stage)

  private openChannel(data: Uint8Array): void {
    this.channel = openChannel(data, channelReaderOptions(this.d.cfg, this.originRef.timestamp));
  }

  /** The open channel's next batch; closes the channel when it has no more. */
  private nextFromChannel(channel: ChannelBatches): InputBatch | undefined {
    const b = channel.next();
    if (b === undefined) {
      if (channel.error !== undefined)
        this.d.logger.debug({ err: channel.error.message }, "channel read stopped early");
      this.channel = undefined;
      return undefined;
    }
    if (logsAt(this.d.logger, "trace"))
      this.d.logger.trace(
        b.kind === "singular"
          ? { kind: b.kind, first: b.batch.timestamp, last: b.batch.timestamp, origin: this.originRef.number }
          : {
              kind: b.kind,
              first: spanStartTimestamp(b.batch),
              last: spanLastTimestamp(b.batch),
              origin: this.originRef.number,
            },
        "batch read",
      );
    // A singular batch is already the batch stage's shape (no wrapper per block); a span batch drops its raw form.
    return b.kind === "singular" ? b : { kind: "span", batch: b.batch };
  }

  next(): InputBatch | undefined {
    for (;;) {
      if (this.channel !== undefined) {
        const b = this.nextFromChannel(this.channel);
        if (b !== undefined) return b;
      }
      if (this.bank !== undefined) {
        const data = this.bank.read();
        if (data !== undefined) {
          this.openChannel(data);
          continue;
        }
      }
      const frame = this.frames.shift();
      if (frame !== undefined) {
        if (this.assembler !== undefined) {
          const ev = this.assembler.addFrame(frame);
          if (ev.kind === "ready") this.openChannel(ev.data);
        } else {
          this.bank?.ingestFrame(frame);
        }
        continue;
      }
      const item = this.items?.shift();
      if (item === undefined) return undefined;
      try {
        const parsed = parseFrames(item);
        this.frames = this.assembler !== undefined ? pruneFrameQueue([...this.frames, ...parsed]) : parsed;
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
      }
    }
  }

  flushChannel(): void {
    this.channel = undefined;
    this.assembler?.flush();
  }

  // ------------------------------------------------------------------------------------------------------------
  // Step

  /** The batch stage's view of the L2 blocks read so far (one object, not rebuilt per step). */
  private readonly lookupView: SafeBlockLookup = new CachedSafeBlocks(this.l2Cache);

  private lookup(): SafeBlockLookup {
    return this.lookupView;
  }

  private async fetchL2(numbers: readonly number[]): Promise<void> {
    for (const n of numbers) {
      if (this.l2Cache.has(n)) continue;
      const env = await this.d.engine.payloadByNumber(n);
      if (env === undefined) continue;
      this.l2Cache.set(n, {
        ref: this.d.refFromPayload(env),
        transactions: env.executionPayload.transactions.map((t) => hexToBytes(t)),
      });
    }
    if (this.l2Cache.size > 2048) this.l2Cache.clear();
  }

  async step(pendingSafe: L2BlockRef): Promise<StepResult> {
    if (this.items === undefined) {
      await this.loadItems();
      return { kind: "progress" };
    }
    const r = this.stage.nextBatch(pendingSafe, this.source, this.lookup());
    if (r.kind === "batch") {
      if (logsAt(this.d.logger, "trace"))
        this.d.logger.trace({ origin: this.originRef.number, parent: pendingSafe.number }, "batch accepted");
      const b = r.batch;
      // The derived block's attributes, made once: the builder appends the batch's transactions (their bytes,
      // subarrays of the decompressed channel) after the deposits; hex is encoded only if the block is built.
      const epoch = { hash: b.epochHash, number: b.epochNum };
      const builder = this.d.builder;
      const prepared = await builder.prepare(pendingSafe, epoch, b.transactions);
      if (b.timestamp !== prepared.attributes.fields.timestamp) {
        throw new ResetError("BATCH_TIMESTAMP", "batch timestamp does not follow the pending safe head");
      }
      const attrs: DerivedAttributes = {
        attributes: prepared.attributes,
        parent: pendingSafe,
        l1origin: prepared.l1origin,
        sequenceNumber: prepared.sequenceNumber,
        concluding: r.concluding,
        derivedFrom: this.originRef,
      };
      return { kind: "attributes", attrs };
    }
    if (r.kind === "not-enough-data") {
      if (r.missingL2.length > 0) await this.fetchL2(r.missingL2);
      return { kind: "progress" };
    }
    if (r.missingL2.length > 0) {
      await this.fetchL2(r.missingL2);
      return { kind: "progress" };
    }
    return (await this.advanceOrigin()) ? { kind: "progress" } : { kind: "eof" };
  }

  invalidated(last: DerivedAttributes, denied = false): DerivedAttributes | undefined {
    if (!denied && !isHoloceneDerivation(this.d.cfg, last.derivedFrom.timestamp)) return undefined;
    if (this.stage instanceof BatchStage) this.stage.flushChannel(this.source);
    const deposits = last.attributes.txBytes.filter((t) => t[0] === DEPOSIT_TX_TYPE);
    return { ...last, attributes: { ...last.attributes, txBytes: deposits }, depositsOnly: true };
  }
}

/*
 * The batch stage's views of a pipeline, as classes rather than object literals of arrow functions: every chain's
 * pipeline then brings the same functions to the batch stage's call sites (one call target, which V8 inlines),
 * where per-instance closures made those sites see a new target with each chain or restarted node ("wrong call
 * target" deoptimizations).
 */
class PipelineSource implements BatchSource {
  constructor(private readonly p: L1DerivationPipeline) {}
  origin(): L1BlockRef {
    return this.p.origin;
  }
  next(): InputBatch | undefined {
    return this.p.next();
  }
  flushChannel(): void {
    this.p.flushChannel();
  }
}

class CachedSafeBlocks implements SafeBlockLookup {
  constructor(private readonly cache: Map<number, { ref: L2BlockRef; transactions: Uint8Array[] }>) {}
  l2BlockRefByNumber(n: number): L2BlockRef | undefined {
    return this.cache.get(n)?.ref;
  }
  safeBlockByNumber(n: number): { ref: L2BlockRef; transactions: Uint8Array[] } | undefined {
    return this.cache.get(n);
  }
}
