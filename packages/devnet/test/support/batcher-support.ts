/**
 * Test support for the batcher tests: builds L2 blocks on a simulated execution client through the Engine API with
 * payload attributes assembled from the protocol layer (L1-info deposit for a real anvil L1 origin, user deposits
 * from that origin's TransactionDeposited logs), and reads a chain's batches back from anvil (calldata and the
 * beacon blobs endpoint) through the protocol layer's decoders.
 */
import { privateKeyToAccount } from "viem/accounts";
import { type Address, bytesToHex, type Hash, type Hex, hexToBytes, toQuantity } from "supernode/core";
import { devAccount } from "../../src/l1/dev-accounts.js";
import type { DevnetL1 } from "../../src/l1/l1.js";
import { mintEngineJwt } from "../../src/el/index.js";
import { HttpRpcClient } from "supernode/json-rpc";
import {
  buildPayloadAttributes,
  type ChannelBatch,
  channelReaderOptions,
  decodeBlob,
  devnetL1Config,
  encodeRpcTransaction,
  type Frame,
  l1OriginBlobBaseFee,
  parseFrames,
  payloadAttributesToJson,
  readChannel,
  type Receipt,
  type RollupConfig,
  selectBatcherData,
  userDepositsFromReceipts,
} from "supernode/protocol";

interface RpcL1Block {
  readonly number: Hex;
  readonly hash: Hash;
  readonly timestamp: Hex;
  readonly mixHash: Hash;
  readonly baseFeePerGas: Hex;
  readonly excessBlobGas?: Hex;
  readonly parentBeaconBlockRoot?: Hash;
  readonly transactions: readonly Record<string, unknown>[];
}

/** What a built L2 block must decode back into. */
export interface BuiltBlock {
  readonly number: number;
  readonly hash: Hash;
  readonly parentHash: Hash;
  readonly timestamp: number;
  readonly l1Origin: { readonly number: number; readonly hash: Hash };
  /** The signed user transactions we put in (EIP-2718 hex), in block order. */
  readonly userTxs: readonly Hex[];
  readonly depositCount: number;
}

async function l1Block(l1: DevnetL1, n: number): Promise<RpcL1Block> {
  const b = await l1.anvil.rpc.call<RpcL1Block | null>("eth_getBlockByNumber", [toQuantity(n), true]);
  if (b === null) throw new Error(`no L1 block ${n}`);
  return b;
}

async function l1Receipts(l1: DevnetL1, n: number): Promise<Receipt[]> {
  const rs = await l1.anvil.rpc.call<Record<string, unknown>[]>("eth_getBlockReceipts", [toQuantity(n)]);
  return rs.map((r) => ({
    type: Number(r.type),
    status: r.status === "0x1" ? 1 : 0,
    cumulativeGasUsed: BigInt(r.cumulativeGasUsed as Hex),
    logs: (r.logs as Record<string, unknown>[]).map((l) => ({
      address: (l.address as Address).toLowerCase() as Address,
      topics: l.topics as Hash[],
      data: l.data as Hex,
      logIndex: Number(l.logIndex),
    })),
  })) as unknown as Receipt[];
}

/** Drives one simulated EL as a sequencer would: fcU(attrs) → getPayload → newPayload → fcU. */
export class L2BlockBuilder {
  readonly blocks: BuiltBlock[] = [];
  private head: {
    hash: Hash;
    parentHash: Hash;
    number: number;
    timestamp: number;
    origin: number;
    originHash: Hash;
    seq: number;
  };
  private readonly auth: HttpRpcClient;
  private readonly http: HttpRpcClient;
  private nonce = 0;
  private readonly sender;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly l1: DevnetL1,
    el: { readonly authUrl: string; readonly httpUrl: string },
    jwtSecret: Uint8Array,
    senderIndex = 9,
  ) {
    this.auth = new HttpRpcClient({
      url: el.authUrl,
      timeoutMs: 30_000,
      headers: () => ({ authorization: `Bearer ${mintEngineJwt(jwtSecret, Math.floor(Date.now() / 1000))}` }),
    });
    this.http = new HttpRpcClient({ url: el.httpUrl, timeoutMs: 30_000 });
    this.sender = privateKeyToAccount(devAccount(senderIndex).privateKey);
    this.head = {
      hash: cfg.genesis.l2.hash,
      parentHash: `0x${"00".repeat(32)}`,
      number: cfg.genesis.l2.number,
      timestamp: cfg.genesis.l2_time,
      origin: cfg.genesis.l1.number,
      originHash: cfg.genesis.l1.hash,
      seq: 0,
    };
  }

  /** A signed EIP-1559 transfer from the sender account on this L2. */
  async signTransfer(to: Address, value: bigint): Promise<Hex> {
    return this.sender.signTransaction({
      chainId: Number(this.cfg.l2_chain_id),
      type: "eip1559",
      nonce: this.nonce++,
      to,
      value,
      gas: 21_000n,
      maxFeePerGas: 50_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    });
  }

  /**
   * Builds the next L2 block on the L1 origin a sequencer would pick: the current origin, or the next L1 block when
   * it exists and its timestamp is not after the new L2 block's.
   */
  async buildNext(txs: readonly Hex[] = []): Promise<BuiltBlock> {
    const timestamp = this.head.timestamp + this.cfg.block_time;
    let origin = this.head.origin;
    const head = await this.l1.anvil.blockNumber();
    if (origin + 1 <= head) {
      const next = await l1Block(this.l1, origin + 1);
      if (Number(BigInt(next.timestamp)) <= timestamp) origin++;
    }
    return this.build(origin, txs);
  }

  /**
   * Builds the next L2 block on L1 origin `originNumber` (must be ≥ the current origin); `txs` are signed user
   * transactions sent to the EL's pool first. User deposits of the origin go into the epoch's first block.
   */
  async build(originNumber: number, txs: readonly Hex[] = []): Promise<BuiltBlock> {
    const origin = await l1Block(this.l1, originNumber);
    const newEpoch = originNumber !== this.head.origin;
    const seq = newEpoch ? 0 : this.head.seq + 1;
    const timestamp = this.head.timestamp + this.cfg.block_time;
    const sys = this.cfg.genesis.system_config;
    const l1Time = Number(BigInt(origin.timestamp));
    const deposits = newEpoch
      ? userDepositsFromReceipts(
          await l1Receipts(this.l1, originNumber),
          this.cfg.deposit_contract_address,
          origin.hash,
        )
      : [];
    for (const tx of txs) await this.http.call("eth_sendRawTransaction", [tx]);
    const attributes = buildPayloadAttributes({
      cfg: this.cfg,
      sysConfig: sys,
      l2Parent: {
        hash: this.head.hash,
        number: this.head.number,
        parentHash: this.head.parentHash,
        timestamp: this.head.timestamp,
        l1origin: { number: this.head.origin, hash: this.head.originHash },
        sequenceNumber: this.head.seq,
      },
      l1Origin: {
        number: originNumber,
        hash: origin.hash,
        time: l1Time,
        baseFee: BigInt(origin.baseFeePerGas),
        blobBaseFee: l1OriginBlobBaseFee(
          this.cfg,
          devnetL1Config(this.cfg.l1_chain_id),
          l1Time,
          origin.excessBlobGas === undefined ? undefined : BigInt(origin.excessBlobGas),
        ),
        mixHash: origin.mixHash,
        ...(origin.parentBeaconBlockRoot === undefined ? {} : { parentBeaconBlockRoot: origin.parentBeaconBlockRoot }),
      },
      depositTxs: deposits,
      seqNumber: seq,
      timestamp,
      noTxPool: false,
    });
    const attrs = payloadAttributesToJson(attributes);
    const fcs = {
      headBlockHash: this.head.hash,
      safeBlockHash: this.head.hash,
      finalizedBlockHash: this.cfg.genesis.l2.hash,
    };
    const fcu = await this.auth.call<{ payloadStatus: { status: string }; payloadId: Hex }>(
      "engine_forkchoiceUpdatedV3",
      [fcs, attrs],
    );
    if (fcu.payloadStatus.status !== "VALID") throw new Error(`fcU: ${fcu.payloadStatus.status}`);
    const env = await this.auth.call<{ executionPayload: Record<string, unknown> }>("engine_getPayloadV4", [
      fcu.payloadId,
    ]);
    const payload = env.executionPayload;
    const np = await this.auth.call<{ status: string }>("engine_newPayloadV4", [
      payload,
      [],
      attrs.parentBeaconBlockRoot,
      [],
    ]);
    if (np.status !== "VALID") throw new Error(`newPayload: ${JSON.stringify(np)}`);
    const hash = payload.blockHash as Hash;
    await this.auth.call("engine_forkchoiceUpdatedV3", [{ ...fcs, headBlockHash: hash }, null]);
    const included = (payload.transactions as Hex[]).filter((t) => !t.startsWith("0x7e"));
    const block: BuiltBlock = {
      number: this.head.number + 1,
      hash,
      parentHash: this.head.hash,
      timestamp,
      l1Origin: { number: originNumber, hash: origin.hash },
      userTxs: included,
      depositCount: deposits.length,
    };
    this.head = {
      hash,
      parentHash: block.parentHash,
      number: block.number,
      timestamp,
      origin: originNumber,
      originHash: origin.hash,
      seq,
    };
    this.blocks.push(block);
    return block;
  }
}

/** A batch read back from L1, with the L1 block its channel completed in. */
export interface ReadBackBatch {
  readonly l1Block: number;
  readonly batch: ChannelBatch;
  readonly source: "calldata" | "blob";
}

/**
 * Reads every batch of `cfg`'s chain from L1 blocks `from..to`: batcher transactions selected by the protocol
 * layer (inbox + authorised sender), blobs fetched from anvil's beacon endpoint and decoded, frames parsed and
 * assembled per channel, channels decompressed and decoded.
 */
export async function readBatchesFromL1(
  l1: DevnetL1,
  cfg: RollupConfig,
  from: number,
  to: number,
): Promise<ReadBackBatch[]> {
  const out: ReadBackBatch[] = [];
  const open = new Map<string, { frames: Frame[]; source: "calldata" | "blob" }>();
  for (let n = from; n <= to; n++) {
    const block = await l1Block(l1, n);
    const txs = block.transactions.map((t) => encodeRpcTransaction(t));
    const items = selectBatcherData(txs, {
      batchInbox: cfg.batch_inbox_address,
      batcherAddr: cfg.genesis.system_config.batcherAddr,
      l1ChainId: cfg.l1_chain_id,
      blobs: true,
    });
    for (const item of items) {
      let data: Uint8Array;
      let source: "calldata" | "blob";
      if (item.kind === "calldata") {
        data = item.data;
        source = "calldata";
      } else {
        const [blob] = await l1.anvil.beaconBlobs(n, [item.versionedHash]);
        if (blob === undefined) throw new Error(`blob ${item.versionedHash} missing in L1 block ${n}`);
        data = decodeBlob(hexToBytes(blob));
        source = "blob";
      }
      for (const f of parseFrames(data)) {
        const ch = open.get(f.id) ?? { frames: [], source };
        ch.frames.push(f);
        open.set(f.id, ch);
        const last = ch.frames.find((x) => x.isLast);
        if (last === undefined || ch.frames.length !== last.frameNumber + 1) continue;
        open.delete(f.id);
        const ordered = [...ch.frames].sort((a, b) => a.frameNumber - b.frameNumber);
        const size = ordered.reduce((s, x) => s + x.data.length, 0);
        const buf = new Uint8Array(size);
        let pos = 0;
        for (const x of ordered) {
          buf.set(x.data, pos);
          pos += x.data.length;
        }
        const res = readChannel(buf, channelReaderOptions(cfg, Number(BigInt(block.timestamp))));
        if (res.error !== undefined) throw res.error;
        for (const b of res.batches) out.push({ l1Block: n, batch: b, source: ch.source });
      }
    }
  }
  return out;
}

/**
 * One L2 block as read back from L1. A singular batch carries the full parent and epoch hashes; a span batch only
 * 20-byte prefixes: of the first block's parent hash (`parentCheck`, on its first element) and of the last block's
 * L1 origin hash (`l1OriginCheck`, on its last element).
 */
export interface DecodedBlock {
  timestamp: number;
  epochNum: number;
  epochHash?: Hash;
  parentHash?: Hash;
  /** 0x + 20 bytes: `parentCheck` of the span batch this block opens. */
  parentPrefix?: Hex;
  /** 0x + 20 bytes: `l1OriginCheck` of the span batch this block closes. */
  epochPrefix?: Hex;
  txs: Hex[];
}

/** Flattens read-back batches into per-block records comparable with `BuiltBlock`. */
export function blocksFromBatches(batches: readonly ReadBackBatch[]): DecodedBlock[] {
  const out: DecodedBlock[] = [];
  for (const { batch } of batches) {
    if (batch.kind === "singular") {
      const b = batch.batch;
      out.push({
        timestamp: b.timestamp,
        epochNum: b.epochNum,
        epochHash: b.epochHash,
        parentHash: b.parentHash,
        txs: b.transactions.map(bytesToHex),
      });
    } else {
      const els = batch.batch.elements;
      els.forEach((e, i) => {
        out.push({
          timestamp: e.timestamp,
          epochNum: e.epochNum,
          ...(i === 0 ? { parentPrefix: bytesToHex(batch.batch.parentCheck) } : {}),
          ...(i === els.length - 1 ? { epochPrefix: bytesToHex(batch.batch.l1OriginCheck) } : {}),
          txs: e.transactions.map(bytesToHex),
        });
      });
    }
  }
  return out;
}

/**
 * Checks a decoded block's parent and epoch hashes against the built block: in full for singular batches, by the
 * 20-byte checks for span batches. Returns how many parent and epoch checks it made.
 */
export function checkHashes(
  d: DecodedBlock,
  b: { parentHash: Hash; l1Origin: { hash: Hash } },
): { parent: number; epoch: number } {
  let parent = 0;
  let epoch = 0;
  if (d.parentHash !== undefined) {
    if (d.parentHash !== b.parentHash) throw new Error(`parent hash ${d.parentHash} != built ${b.parentHash}`);
    parent++;
  }
  if (d.parentPrefix !== undefined) {
    if (d.parentPrefix !== b.parentHash.slice(0, 42))
      throw new Error(`span parentCheck ${d.parentPrefix} != ${b.parentHash}`);
    parent++;
  }
  if (d.epochHash !== undefined) {
    if (d.epochHash !== b.l1Origin.hash) throw new Error(`epoch hash ${d.epochHash} != built ${b.l1Origin.hash}`);
    epoch++;
  }
  if (d.epochPrefix !== undefined) {
    if (d.epochPrefix !== b.l1Origin.hash.slice(0, 42)) {
      throw new Error(`span l1OriginCheck ${d.epochPrefix} != ${b.l1Origin.hash}`);
    }
    epoch++;
  }
  return { parent, epoch };
}
