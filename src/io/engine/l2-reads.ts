/**
 * Reads of L2 blocks on the Engine API's authenticated endpoint (`eth_*`): block references (L1 origin and
 * sequence number decoded from the L1-info deposit), payloads, headers with transaction hashes, receipts and
 * `eth_getProof`. A walk back along parent hashes is detected and read ahead in JSON-RPC batches.
 */
import { toQuantity } from "../../core/codec/quantity.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import type { Address, Hash, Hex } from "../../core/types/primitives.js";
import { parseRpcReceipt, type Receipt } from "../../protocol/block/receipt.js";
import type { RollupConfig } from "../../protocol/rollup-config.js";
import { type HttpRpcClient, RpcError } from "../json-rpc/http-client.js";
import type { ExecutionPayloadEnvelope, L2BlockHeader } from "../../protocol/engine-api-types.js";
import { headerFromRpcBlock, l2BlockRefFromRpcBlock, payloadFromRpcBlock } from "./l2-block.js";

export type L2Label = "latest" | "safe" | "finalized";

/** How execution clients say that no block has a label yet (op-geth, erigon). */
const NO_LABELLED_BLOCK = /block not found|unknown block/i;

/** Blocks read ahead per batch request when walking back along parent hashes. */
const WALK_BATCH = 64;

interface WalkAhead {
  /** Hash the walk asks for next (the parent of the last block returned). */
  expect: Hash;
  /** Lowest block number read ahead (or being read). */
  low: number;
  readonly refs: Map<Hash, L2BlockRef>;
  pending: Promise<void> | undefined;
}

export class L2BlockReads {
  private walk: WalkAhead | undefined;

  constructor(
    private readonly rpc: HttpRpcClient,
    private readonly cfg: RollupConfig,
  ) {}

  /**
   * The block a label names, or undefined when the client has none yet. op-geth answers `safe` and `finalized`
   * before any forkchoice update set them with an error (-32000 `finalized block not found`; erigon: `Unknown
   * block`) instead of null: that is "none yet" too, as op-node reads it.
   */
  async l2BlockRefByLabel(label: L2Label): Promise<L2BlockRef | undefined> {
    try {
      return this.refOf(await this.rpc.call("eth_getBlockByNumber", [label, true]));
    } catch (err) {
      if (label !== "latest" && err instanceof RpcError && NO_LABELLED_BLOCK.test(err.message)) return undefined;
      throw err;
    }
  }

  async l2BlockRefByNumber(n: number): Promise<L2BlockRef | undefined> {
    return this.refOf(await this.rpc.call("eth_getBlockByNumber", [toQuantity(n), true]));
  }

  /**
   * The block ref by hash. A walk back along parent hashes (finding the heads after a restart or reset asks for
   * each parent in turn) is detected and read ahead: the blocks below are requested by number in JSON-RPC batches
   * and kept by hash, so the walk costs one request per batch instead of one per block. A block's ref is fixed by
   * its hash, so serving one from the read-ahead is exact; the read-ahead is dropped when the walk ends.
   */
  async l2BlockRefByHash(hash: Hash): Promise<L2BlockRef | undefined> {
    const w = this.walk;
    if (w !== undefined && w.expect === hash) {
      let hit = w.refs.get(hash);
      if (hit === undefined && w.pending !== undefined) {
        await w.pending;
        hit = w.refs.get(hash);
      }
      if (hit !== undefined) {
        w.refs.delete(hash);
        w.expect = hit.parentHash;
        if (hit.number - w.low < WALK_BATCH / 2) this.walkAhead(w);
        return hit;
      }
    }
    const ref = this.refOf(await this.rpc.call("eth_getBlockByHash", [hash, true]));
    if (ref === undefined) {
      this.walk = undefined;
    } else if (w !== undefined && w.expect === hash) {
      // Second consecutive parent: a walk. Read ahead below it.
      const next: WalkAhead = { expect: ref.parentHash, low: ref.number, refs: new Map(), pending: undefined };
      this.walk = next;
      this.walkAhead(next);
    } else {
      this.walk = { expect: ref.parentHash, low: ref.number, refs: new Map(), pending: undefined };
    }
    return ref;
  }

  private walkAhead(w: WalkAhead): void {
    if (w.pending !== undefined || w.low <= 0) return;
    const hi = w.low - 1;
    const lo = Math.max(0, w.low - WALK_BATCH);
    // A ref needs the header and the first transaction (the L1-info deposit) only: each block is read as its
    // header with transaction hashes plus its transaction 0, not with every transaction object.
    const calls = [];
    for (let n = hi; n >= lo; n--) {
      const q = toQuantity(n);
      calls.push({ method: "eth_getBlockByNumber", params: [q, false] });
      calls.push({ method: "eth_getTransactionByBlockNumberAndIndex", params: [q, "0x0"] });
    }
    w.low = lo;
    const p = this.rpc.batch(calls).then(
      (res) => {
        for (let i = 0; i + 1 < res.length; i += 2) {
          const b = res[i]!;
          const t = res[i + 1]!;
          if (!b.ok || !t.ok || b.result === null || typeof b.result !== "object") continue;
          // Both from the same block (the chain may change between the two calls): else the walk reads it by hash.
          const hash = (b.result as { hash?: unknown }).hash;
          if (t.result !== null && (t.result as { blockHash?: unknown } | undefined)?.blockHash !== hash) continue;
          try {
            const block = { ...(b.result as object), transactions: t.result === null ? [] : [t.result] };
            const ref = l2BlockRefFromRpcBlock(block, this.cfg);
            w.refs.set(ref.hash, ref);
          } catch {
            // Not readable here: the walk asks for it by hash and gets the error then.
          }
        }
      },
      () => {},
    );
    const pending: Promise<void> = p.finally(() => {
      if (w.pending === pending) w.pending = undefined;
    });
    w.pending = pending;
  }

  async payloadByNumber(n: number): Promise<ExecutionPayloadEnvelope | undefined> {
    const b = await this.rpc.call("eth_getBlockByNumber", [toQuantity(n), true]);
    return b === null ? undefined : payloadFromRpcBlock(b, this.cfg);
  }

  /**
   * Blocks `ns` (canonical, by number) in one JSON-RPC batch request of `eth_getBlockByNumber` calls (read-only
   * calls, so batching is safe). Each element is the payload, undefined when the EL has no such block, or the
   * error that element produced.
   */
  async payloadsByNumber(ns: readonly number[]): Promise<(ExecutionPayloadEnvelope | undefined | Error)[]> {
    const res = await this.rpc.batch(
      ns.map((n) => ({ method: "eth_getBlockByNumber", params: [toQuantity(n), true] })),
    );
    return res.map((r) => {
      if (!r.ok) return r.error;
      if (r.result === null) return undefined;
      try {
        return payloadFromRpcBlock(r.result, this.cfg);
      } catch (err) {
        return err as Error;
      }
    });
  }

  /**
   * Headers and transaction hashes of blocks `ns` (canonical, by number): one JSON-RPC batch of
   * `eth_getBlockByNumber(n, false)`, elements as in {@link payloadsByNumber}. No transaction objects cross the
   * wire, none is parsed or re-encoded: what consolidating a run of blocks the EL already has needs.
   */
  async headersByNumber(ns: readonly number[]): Promise<(L2BlockHeader | undefined | Error)[]> {
    const res = await this.rpc.batch(
      ns.map((n) => ({ method: "eth_getBlockByNumber", params: [toQuantity(n), false] })),
    );
    return res.map((r) => {
      if (!r.ok) return r.error;
      if (r.result === null) return undefined;
      try {
        return headerFromRpcBlock(r.result, this.cfg);
      } catch (err) {
        return err as Error;
      }
    });
  }

  async payloadByHash(hash: Hash): Promise<ExecutionPayloadEnvelope | undefined> {
    const b = await this.rpc.call("eth_getBlockByHash", [hash, true]);
    return b === null ? undefined : payloadFromRpcBlock(b, this.cfg);
  }

  /** Every receipt of block `hash` (`eth_getBlockReceipts`), in transaction order; undefined for an unknown block. */
  async blockReceipts(hash: Hash): Promise<Receipt[] | undefined> {
    const r = await this.rpc.call("eth_getBlockReceipts", [hash]);
    if (r === null) return undefined;
    if (!Array.isArray(r)) throw new DecodeError("eth_getBlockReceipts: not an array", { hash });
    return r.map(parseRpcReceipt);
  }

  /** `eth_getProof` at a block hash; the output root needs `storageHash` (L2ToL1MessagePasser storage root). */
  async getProof(
    address: Address,
    slots: readonly Hash[],
    blockHash: Hash,
  ): Promise<{ storageHash: Hash; accountProof: readonly Hex[]; storageProof: readonly unknown[] }> {
    const r = (await this.rpc.call("eth_getProof", [address, slots, { blockHash }])) as {
      storageHash?: unknown;
      accountProof?: Hex[];
      storageProof?: unknown[];
    } | null;
    if (r === null || typeof r.storageHash !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(r.storageHash)) {
      throw new DecodeError("eth_getProof: missing storageHash", { address, blockHash });
    }
    return {
      storageHash: r.storageHash.toLowerCase() as Hash,
      accountProof: r.accountProof ?? [],
      storageProof: r.storageProof ?? [],
    };
  }

  private refOf(block: unknown): L2BlockRef | undefined {
    return block === null || block === undefined ? undefined : l2BlockRefFromRpcBlock(block, this.cfg);
  }
}
