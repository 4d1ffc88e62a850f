/**
 * The devnet batcher: follows a chain's unsafe L2 blocks on its execution client, packs them into channels
 * (singular or span batches, zlib or brotli), and posts the frames to the chain's batch inbox on the devnet L1 as
 * calldata or blob transactions from the authorised batcher account. On every poll it checks its transactions
 * against the canonical L1 chain (by block hash); when an L1 reorg dropped one (or one stays unmined too long), it
 * puts the blocks of that channel (and of every later channel) back in the queue and posts them again, replacing
 * any stale transactions of the account that the reorg left in the node's pool. When the L2 chain it loaded is
 * replaced, it forgets the channels holding replaced blocks and posts the new blocks from the last channel kept.
 */
import { bytesToHex, type Hash, type Hex, type Logger, SerialQueue, silentLogger } from "supernode/core";
import { type Compression, encodeBlob, MAX_BLOB_DATA_SIZE, type RollupConfig } from "supernode/protocol";
import { devAccount } from "../l1/dev-accounts.js";
import type { L1Client } from "../l1/l1-client.js";
import { type BatchType, type BuiltChannel, buildChannel } from "./channel-builder.js";
import { type BatchBlock, L2Reader } from "./l2-reader.js";
import { BatcherTxSender } from "./tx-sender.js";

export type DataMode = "calldata" | "blobs";

export interface BatcherOptions {
  readonly rollupConfig: RollupConfig;
  /** The chain's execution client JSON-RPC URL. */
  readonly l2RpcUrl: string;
  readonly l1: L1Client;
  /** Dev account index of the authorised batcher (its address must be the config's batcher). */
  readonly accountIndex: number;
  readonly mode?: DataMode;
  readonly batchType?: BatchType;
  readonly compression?: Compression | "auto";
  /** Close a channel once its first block waited this many L1 blocks (0 = close on every step). Default 0. */
  readonly maxChannelDurationL1Blocks?: number;
  /** Also close a channel once it holds this many L2 blocks. Default 100. */
  readonly maxBlocksPerChannel?: number;
  /** Maximum encoded frame size; default 120_000 (calldata) or a full blob. */
  readonly maxFrameSize?: number;
  /** Blobs per blob transaction (default 6). */
  readonly maxBlobsPerTx?: number;
  readonly pollIntervalMs?: number;
  /** A posted transaction still unmined after this long counts as dropped and is posted again. Default 12 s. */
  readonly pendingTimeoutMs?: number;
  readonly logger?: Logger;
}

/** A batcher transaction and where it landed. */
export interface SubmittedTx {
  readonly hash: Hash;
  readonly nonce: number;
  /** When it was handed to the L1 node (ms since the epoch). */
  readonly sentAtMs: number;
  readonly channelId: Hex;
  readonly frameNumbers: readonly number[];
  readonly blobs: number;
  l1Block: { number: number; hash: Hash } | undefined;
}

interface InflightChannel {
  readonly channel: BuiltChannel;
  readonly txs: SubmittedTx[];
}

export interface BatcherStats {
  readonly channels: number;
  readonly txs: number;
  readonly resubmittedChannels: number;
  /** Blocks in channels whose transactions are not all included on the canonical L1 yet. */
  readonly unconfirmed: number;
  /** Highest L2 block whose channel (and every earlier one) is included on the canonical L1. */
  readonly confirmedThrough: number;
  readonly queued: number;
}

export class Batcher {
  private readonly log: Logger;
  private readonly reader: L2Reader;
  private readonly cfg: RollupConfig;
  /** Blocks loaded from L2 and not yet in a channel, oldest first. */
  private queue: BatchBlock[] = [];
  /** The newest loaded block (queued or in a channel). */
  private tip: BatchBlock | undefined;
  private queueOpenedAtL1: number | undefined;
  private inflight: InflightChannel[] = [];
  private readonly history: SubmittedTx[] = [];
  private confirmed: number;
  /** Last L2 block of the channels already pruned as final on L1. */
  private finalThrough: number;
  private resubmitted = 0;
  private channelCount = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly serial = new SerialQueue();
  private readonly sender: BatcherTxSender;

  constructor(private readonly opts: BatcherOptions) {
    this.cfg = opts.rollupConfig;
    this.log = (opts.logger ?? silentLogger).child({ component: "batcher", chain: Number(this.cfg.l2_chain_id) });
    this.reader = new L2Reader(opts.l2RpcUrl, this.cfg);
    this.confirmed = this.cfg.genesis.l2.number;
    this.finalThrough = this.cfg.genesis.l2.number;
    this.sender = new BatcherTxSender(opts.l1, opts.accountIndex, devAccount(opts.accountIndex).address);
  }

  /** Every transaction posted so far (including ones a reorg dropped). */
  get submitted(): readonly SubmittedTx[] {
    return this.history;
  }

  stats(): BatcherStats {
    return {
      channels: this.channelCount,
      txs: this.history.length,
      resubmittedChannels: this.resubmitted,
      unconfirmed: this.inflight.reduce(
        (n, c) => n + (c.txs.every((t) => t.l1Block !== undefined) ? 0 : c.channel.blocks.length),
        0,
      ),
      confirmedThrough: this.confirmed,
      queued: this.queue.length,
    };
  }

  /** Starts the poll loop. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = (): void => {
      if (this.stopped) return;
      this.running = this.step()
        .catch((err: unknown) => this.log.warn({ err: String(err) }, "batcher step failed"))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, this.opts.pollIntervalMs ?? 500);
        });
    };
    loop();
    this.log.info(
      { mode: this.opts.mode ?? "calldata", batchType: this.opts.batchType ?? "singular" },
      "batcher started",
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }

  /** One iteration: check L1 inclusion, load new L2 blocks, and post a channel when one is due. */
  step(opts: { readonly flush?: boolean } = {}): Promise<void> {
    // the poll loop and explicit flush() calls never interleave
    return this.serial.run(() => this.stepNow(opts));
  }

  private async stepNow(opts: { readonly flush?: boolean }): Promise<void> {
    await this.checkL1();
    await this.loadL2();
    const head = await this.opts.l1.public.getBlock({ blockTag: "latest" });
    const l1Head = Number(head.number);
    if (this.queue.length > 0 && this.queueOpenedAtL1 === undefined) this.queueOpenedAtL1 = l1Head;
    const due =
      opts.flush === true ||
      this.queue.length >= (this.opts.maxBlocksPerChannel ?? 100) ||
      (this.queueOpenedAtL1 !== undefined &&
        l1Head - this.queueOpenedAtL1 >= (this.opts.maxChannelDurationL1Blocks ?? 0));
    if (this.queue.length > 0 && due) await this.submitChannel(Number(head.timestamp));
  }

  /**
   * Loads and posts everything up to the current L2 head, then waits until all of it is included on the canonical
   * L1 (posting again whatever a reorg drops meanwhile). Throws after `timeoutMs`.
   */
  async flush(timeoutMs = 60_000): Promise<BatcherStats> {
    await this.step({ flush: true });
    const until = Date.now() + timeoutMs;
    for (;;) {
      const done = await this.serial.run(async () => {
        await this.checkL1();
        if (this.queue.length > 0) {
          const head = await this.opts.l1.public.getBlock({ blockTag: "latest" });
          await this.submitChannel(Number(head.timestamp));
        }
        return this.queue.length === 0 && this.inflight.every((c) => c.txs.every((t) => t.l1Block !== undefined));
      });
      if (done) return this.stats();
      if (Date.now() > until) throw new Error("batcher flush: transactions not included on L1 in time");
      await new Promise((r) => setTimeout(r, Math.min(this.opts.pollIntervalMs ?? 500, 200)));
    }
  }

  private async loadL2(): Promise<void> {
    // The chain under the newest loaded block may have been replaced (the sequencer reorgs its unsafe blocks after
    // an L1 reorg) even when no block above it exists yet.
    if (this.tip !== undefined && (await this.reader.hashAt(this.tip.number)) !== this.tip.hash) {
      await this.onL2Reorg(this.tip.number);
    }
    const head = await this.reader.headNumber();
    let next = (this.tip?.number ?? this.cfg.genesis.l2.number) + 1;
    while (next <= head) {
      const block = await this.reader.block(next);
      if (block === undefined) break;
      if (this.tip !== undefined && block.parentHash !== this.tip.hash) {
        await this.onL2Reorg(block.number);
        next = (this.tip?.number ?? this.cfg.genesis.l2.number) + 1;
        continue;
      }
      this.queue.push(block);
      this.tip = block;
      next++;
    }
  }

  /**
   * The L2 chain the batcher loaded was replaced. Posted channels whose blocks are all still canonical stay; a
   * channel holding a replaced block (posted before the sequencer reorged, e.g. resubmitted after an L1 reorg)
   * carries batches the derivation drops, so it and every later channel are forgotten and loading restarts after
   * the last channel kept. (Restarting after the highest included block instead would skip the replacement blocks
   * at the numbers such a stale channel covered, and the chain's safe head could never pass them.)
   */
  private async onL2Reorg(seenAt: number): Promise<void> {
    let keep = 0;
    for (const ch of this.inflight) {
      const last = ch.channel.blocks[ch.channel.blocks.length - 1];
      if (last === undefined || (await this.reader.hashAt(last.number)) !== last.hash) break;
      keep++;
    }
    const dropped = this.inflight.length - keep;
    this.inflight = this.inflight.slice(0, keep);
    this.resubmitted += dropped;
    this.queue = [];
    this.queueOpenedAtL1 = undefined;
    const kept = this.inflight[keep - 1];
    const base = kept === undefined ? this.finalThrough : lastNumber(kept.channel);
    this.tip =
      kept !== undefined
        ? kept.channel.blocks[kept.channel.blocks.length - 1]
        : base > this.cfg.genesis.l2.number
          ? await this.reader.block(base)
          : undefined;
    this.updateConfirmed();
    this.log.warn({ seenAt, reloadFrom: base + 1, droppedChannels: dropped }, "L2 reorg seen by the batcher");
  }

  private maxFrameSize(mode: DataMode): number {
    if (this.opts.maxFrameSize !== undefined) return this.opts.maxFrameSize;
    // data item = version byte + frame
    return mode === "blobs" ? MAX_BLOB_DATA_SIZE - 1 : 120_000;
  }

  private async submitChannel(l1Time: number): Promise<void> {
    const mode = this.opts.mode ?? "calldata";
    const blocks = this.queue;
    this.queue = [];
    this.queueOpenedAtL1 = undefined;
    const channel = buildChannel(this.cfg, blocks, {
      batchType: this.opts.batchType ?? "singular",
      compression: this.opts.compression ?? "auto",
      maxFrameSize: this.maxFrameSize(mode),
      l1Time,
    });
    this.channelCount++;
    const inflight: InflightChannel = { channel, txs: [] };
    this.inflight.push(inflight);
    const to = this.cfg.batch_inbox_address;
    const groups: { frames: number[]; items: Uint8Array[] }[] = [];
    const perTx = mode === "blobs" ? (this.opts.maxBlobsPerTx ?? 6) : 1;
    channel.dataItems.forEach((item, i) => {
      const last = groups[groups.length - 1];
      if (last === undefined || last.items.length >= perTx) groups.push({ frames: [i], items: [item] });
      else {
        last.frames.push(i);
        last.items.push(item);
      }
    });
    const hashes: Hash[] = [];
    for (const g of groups) {
      let sent: { hash: Hash; nonce: number };
      try {
        sent =
          mode === "blobs"
            ? await this.sender.send({ to, blobs: g.items.map((d) => bytesToHex(encodeBlob(d))) })
            : await this.sender.send({ to, data: bytesToHex(g.items[0] as Uint8Array) });
      } catch (err) {
        // A channel with missing frames never completes: forget it and queue its blocks again.
        this.inflight = this.inflight.filter((c) => c !== inflight);
        this.queue = [...blocks, ...this.queue];
        throw err;
      }
      const { hash, nonce } = sent;
      const rec: SubmittedTx = {
        hash,
        nonce,
        sentAtMs: Date.now(),
        channelId: channel.id,
        frameNumbers: g.frames,
        blobs: mode === "blobs" ? g.items.length : 0,
        l1Block: undefined,
      };
      inflight.txs.push(rec);
      this.history.push(rec);
      hashes.push(hash);
    }
    this.log.info(
      {
        channel: channel.id,
        blocks: `${blocks[0]?.number}..${blocks[blocks.length - 1]?.number}`,
        frames: channel.frames.length,
        txs: hashes.length,
        type: channel.batchType,
        compression: channel.compression,
        mode,
      },
      "posted channel",
    );
    // inclusion is tracked by checkL1 on the following polls
  }

  /** Where a posted transaction stands on the canonical L1 (updates its `l1Block`). */
  private async txState(tx: SubmittedTx): Promise<"included" | "pending" | "lost"> {
    const pub = this.opts.l1.public;
    const canonicalHash = (n: number | bigint) =>
      pub
        .getBlock({ blockNumber: BigInt(n) })
        .then((b) => b.hash)
        .catch(() => undefined);
    if (tx.l1Block !== undefined && (await canonicalHash(tx.l1Block.number)) === tx.l1Block.hash) return "included";
    const receipt = await pub.getTransactionReceipt({ hash: tx.hash }).catch(() => undefined);
    if (receipt !== undefined && (await canonicalHash(receipt.blockNumber)) === receipt.blockHash) {
      if (receipt.status !== "success") return "lost";
      tx.l1Block = { number: Number(receipt.blockNumber), hash: receipt.blockHash };
      return "included";
    }
    tx.l1Block = undefined;
    const pooled = await pub.getTransaction({ hash: tx.hash }).catch(() => undefined);
    // gone from the node: a reorg dropped it (or its block) and nothing will mine it again
    if (pooled === undefined) return "lost";
    if (pooled.blockNumber === null && Date.now() - tx.sentAtMs > (this.opts.pendingTimeoutMs ?? 12_000)) return "lost";
    return "pending";
  }

  /**
   * Confirms inclusion of posted transactions on the canonical L1. A transaction that a reorg dropped (or that
   * stayed unmined too long) makes its channel and every later channel go back into the queue.
   */
  private async checkL1(): Promise<void> {
    let lostAt = -1;
    scan: for (let c = 0; c < this.inflight.length; c++) {
      const ch = this.inflight[c] as InflightChannel;
      for (const tx of ch.txs) {
        const state = await this.txState(tx);
        if (state === "included") continue;
        // later transactions have higher nonces: they cannot be included before this one
        if (state === "lost") lostAt = c;
        break scan;
      }
    }
    if (lostAt >= 0) {
      const dropped = this.inflight.slice(lostAt);
      this.inflight = this.inflight.slice(0, lostAt);
      const blocks = dropped.flatMap((d) => d.channel.blocks);
      this.queue = [...blocks, ...this.queue];
      this.queueOpenedAtL1 = undefined;
      this.resubmitted += dropped.length;
      await this.sender.restartFromCanonical();
      this.log.warn(
        { channels: dropped.length, from: blocks[0]?.number, to: blocks[blocks.length - 1]?.number },
        "L1 reorg dropped batcher transactions; resubmitting",
      );
    }
    // prune channels that are final on L1; the confirmed mark is the end of the included prefix
    const finalized = await this.opts.l1.public.getBlock({ blockTag: "finalized" }).catch(() => undefined);
    const finalNum = finalized === undefined ? -1 : Number(finalized.number);
    while (this.inflight.length > 0) {
      const ch = this.inflight[0] as InflightChannel;
      if (!ch.txs.every((t) => t.l1Block !== undefined && t.l1Block.number <= finalNum)) break;
      this.finalThrough = lastNumber(ch.channel);
      this.inflight.shift();
    }
    this.updateConfirmed();
  }

  /** The confirmed mark: the end of the prefix of channels included on L1. */
  private updateConfirmed(): void {
    let through = this.finalThrough;
    for (const ch of this.inflight) {
      if (!ch.txs.every((t) => t.l1Block !== undefined)) break;
      through = lastNumber(ch.channel);
    }
    this.confirmed = through;
  }
}

function lastNumber(ch: BuiltChannel): number {
  const b = ch.blocks[ch.blocks.length - 1];
  if (b === undefined) throw new Error("empty channel");
  return b.number;
}
