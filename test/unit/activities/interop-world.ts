/**
 * An in-memory world for the interop activity: chains of blocks with receipts, local-safe heads, an L1 with a
 * canonical hash per number. Real LevelDB stores are opened by the tests; the chains and L1 are plain data here.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { InteropChain, L1Canonical } from "../../../src/activities/interop/ports.js";
import type { ChainBlockAt } from "../../../src/activities/ports.js";
import { bytesToHex } from "../../../src/core/codec/hex.js";
import type { BlockId } from "../../../src/core/types/block-ref.js";
import type { Address, Hash } from "../../../src/core/types/primitives.js";
import { keccakHex } from "../../../src/protocol/block/keccak.js";
import type { Log } from "../../../src/protocol/block/receipt.js";
import {
  encodeExecutingMessageLog,
  logPayload,
  type MessageIdentifier,
} from "../../../src/protocol/interop/messages.js";
import type { ExecutionPayloadEnvelope } from "../../../src/protocol/engine-api-types.js";
import type { InvalidationPayloads, InvalidHead, SealedBlock } from "../../../src/protocol/interop/types.js";

export const hashOf = (s: string): Hash => bytesToHex(keccak_256(new TextEncoder().encode(s)));
export const EMITTER: Address = "0x00000000000000000000000000000000000e1e1e";

export interface WorldBlock extends SealedBlock {
  readonly logs: Log[];
  readonly l1: BlockId;
  /** Its output roots (made once, so lookups cost the activity's time, not the fixture's). */
  readonly stateRoot: Hash;
  readonly messagePasserStorageRoot: Hash;
  /** How many logs each transaction's receipt holds, in order (default: one receipt with every log). */
  receiptSizes?: number[];
}

export class WorldL1 implements L1Canonical {
  branch = "main";
  /** Numbers from which the branch applies (older numbers keep "main"). */
  forkFrom = Number.POSITIVE_INFINITY;
  lookups = 0;
  private readonly memo = new Map<string, Hash>();
  hashAt(n: number): Hash {
    const tag = `l1-${n}-${n >= this.forkFrom ? this.branch : "main"}`;
    let h = this.memo.get(tag);
    if (h === undefined) {
      h = hashOf(tag);
      this.memo.set(tag, h);
    }
    return h;
  }
  id(n: number): BlockId {
    return { hash: this.hashAt(n), number: n };
  }
  async canonicalHash(n: number): Promise<Hash | undefined> {
    this.lookups++;
    return this.hashAt(n);
  }
}

export class WorldChain implements InteropChain {
  readonly blocks: WorldBlock[] = [];
  private readonly byHash = new Map<Hash, WorldBlock>();
  localSafe = -1;
  readonly invalidated: { head: InvalidHead; ts: number; payloads?: InvalidationPayloads }[] = [];
  /** Number of the block in the oldest SafeDB entry (undefined: the SafeDB is empty). */
  firstSafe: number | undefined = 0;
  blockLogsCalls = 0;
  readonly pruned: number[] = [];
  readonly engineRewinds: number[] = [];
  /** The recorded payload hash of each engine rewind (undefined: none recorded). */
  readonly engineRewindPayloads: (Hash | undefined)[] = [];
  private salt = 0;

  constructor(
    readonly chainId: bigint,
    readonly blockTime: number,
    readonly genesisTime: number,
    private readonly l1: WorldL1,
  ) {
    this.push([]);
    this.localSafe = 0;
  }

  /** Appends a block with `logs`, derived from L1 block `l1Number` (default: its number). */
  push(logs: Log[], l1Number?: number): WorldBlock {
    const n = this.blocks.length;
    const parent = this.blocks[n - 1];
    const hash = hashOf(`l2-${this.chainId}-${n}-${this.salt}`);
    const b: WorldBlock = {
      hash,
      number: n,
      parentHash: parent?.hash ?? hashOf("root"),
      timestamp: this.genesisTime + n * this.blockTime,
      logs,
      l1: this.l1.id(l1Number ?? n),
      stateRoot: hashOf(`sr-${hash}`),
      messagePasserStorageRoot: hashOf(`mp-${hash}`),
    };
    this.blocks.push(b);
    this.byHash.set(hash, b);
    return b;
  }

  /** Pushes `k` blocks and makes them local-safe. */
  advance(k: number, logs: (n: number) => Log[] = () => []): void {
    for (let i = 0; i < k; i++) this.push(logs(this.blocks.length));
    this.localSafe = this.blocks.length - 1;
  }

  /** Replaces blocks from `n` on with a new branch (an L2 reorg); re-derives up to the old height. */
  reorgFrom(n: number, l1Number?: (n: number) => number): void {
    const height = this.blocks.length;
    for (const old of this.blocks.splice(n)) this.byHash.delete(old.hash);
    this.salt++;
    for (let i = n; i < height; i++) this.push([], l1Number?.(i));
    this.localSafe = Math.min(this.localSafe, this.blocks.length - 1);
  }

  timestampToNumber(ts: number): number {
    return Math.floor((ts - this.genesisTime) / this.blockTime);
  }

  numberAt(ts: number): number {
    return this.timestampToNumber(ts);
  }

  async firstSafeTimestamp(): Promise<number | undefined> {
    return this.firstSafe === undefined ? undefined : this.genesisTime + this.firstSafe * this.blockTime;
  }

  /** Block numbers whose logs the EL does not serve by number (a backfill failing half-way). */
  readonly unavailable = new Set<number>();

  blockLogsAtCalls = 0;

  async blockLogsAt(n: number) {
    this.blockLogsAtCalls++;
    if (this.unavailable.has(n)) return undefined;
    const b = this.blocks[n];
    return b === undefined ? undefined : this.blockLogs(b.hash);
  }

  async optimisticAt(ts: number): Promise<ChainBlockAt | undefined> {
    const n = this.timestampToNumber(ts);
    if (n < 0 || n > this.localSafe) return undefined;
    const b = this.blocks[n] as WorldBlock;
    return {
      l2: { hash: b.hash, number: b.number },
      output: { stateRoot: b.stateRoot, messagePasserStorageRoot: b.messagePasserStorageRoot, blockHash: b.hash },
      requiredL1: b.l1,
    };
  }

  async blockLogs(hash: Hash) {
    this.blockLogsCalls++;
    const b = this.byHash.get(hash);
    if (b === undefined) return undefined;
    return {
      block: { hash: b.hash, number: b.number, parentHash: b.parentHash, timestamp: b.timestamp },
      receipts:
        b.receiptSizes === undefined
          ? [{ logs: b.logs }]
          : b.receiptSizes.map((n, i, all) => {
              const from = all.slice(0, i).reduce((x, y) => x + y, 0);
              return { logs: b.logs.slice(from, from + n) };
            }),
    };
  }

  /** A payload of the block's identity (the world has no transactions): what the write-ahead record carries. */
  async payloadByHash(hash: Hash): Promise<ExecutionPayloadEnvelope | undefined> {
    const b = this.byHash.get(hash);
    if (b === undefined) return undefined;
    return {
      executionPayload: {
        parentHash: b.parentHash,
        feeRecipient: EMITTER,
        stateRoot: b.stateRoot,
        prevRandao: b.messagePasserStorageRoot,
        blockNumber: b.number,
        gasLimit: 30_000_000n,
        timestamp: b.timestamp,
        extraData: "0x",
        blockHash: b.hash,
        transactions: [],
      },
    };
  }

  async invalidate(
    head: InvalidHead,
    ts: number,
    payloads?: InvalidationPayloads,
  ): Promise<{ denied: boolean; rewound: boolean }> {
    const denied = !this.invalidated.some((x) => x.head.hash === head.hash);
    this.invalidated.push({ head, ts, ...(payloads === undefined ? {} : { payloads }) });
    const b = this.blocks[head.number];
    if (b?.hash !== head.hash) return { denied, rewound: false }; // already replaced
    // The deposits-only replacement, then the rest re-derived without the descendants' logs.
    this.reorgFrom(head.number);
    return { denied, rewound: true };
  }

  async rewindEngine(target: BlockId, payload?: ExecutionPayloadEnvelope): Promise<boolean> {
    this.engineRewinds.push(target.number);
    this.engineRewindPayloads.push(payload?.executionPayload.blockHash);
    return true;
  }

  async pruneDenied(ts: number): Promise<void> {
    this.pruned.push(ts);
  }

  /** An initiating log (plain log of the emitter) with distinct content. */
  static initiating(tag: string): Log {
    return { address: EMITTER, topics: [hashOf(`topic-${tag}`)], data: `0x${Buffer.from(tag).toString("hex")}` };
  }

  /** The executing message for log `logIndex` of this chain's block `n` (optionally tampered). */
  executing(n: number, logIndex: number, over: Partial<MessageIdentifier> = {}, payloadHash?: Hash): Log {
    const b = this.blocks[n] as WorldBlock;
    const init = b.logs[logIndex] as Log;
    return encodeExecutingMessageLog({
      id: { origin: init.address, blockNumber: n, logIndex, timestamp: b.timestamp, chainId: this.chainId, ...over },
      payloadHash: payloadHash ?? keccakHex(logPayload(init)),
    });
  }
}
