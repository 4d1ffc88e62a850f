/**
 * Reads unsafe L2 blocks from a chain's execution client (`eth_getBlockByNumber` with full transactions) and turns
 * each into what a batch needs: parent hash, timestamp, L1 origin and sequence number (the protocol layer's
 * L2 block → reference, which decodes the L1-info deposit) and the EIP-2718 bytes of every non-deposit transaction.
 */
import { type Hash, type Hex, quantityToNumber } from "supernode/core";
import {
  encodeRpcTransaction,
  l1InfoOfL2Block,
  l2BlockFactsFromRpc,
  l2BlockToBlockRef,
  type RollupConfig,
  type SingularBatch,
} from "supernode/protocol";
import { HttpRpcClient } from "supernode/json-rpc";

/** One L2 block as the batcher keeps it. */
export interface BatchBlock {
  readonly number: number;
  readonly hash: Hash;
  readonly parentHash: Hash;
  readonly timestamp: number;
  readonly l1Origin: { readonly number: number; readonly hash: Hash };
  /** Timestamp of the L1 origin (from the L1-info deposit; undefined for the genesis block). */
  readonly l1OriginTime?: number;
  /** Position of the block within its epoch (0 = first block of the epoch). */
  readonly sequenceNumber: number;
  /** EIP-2718 encodings of the non-deposit transactions, in block order. */
  readonly transactions: readonly Uint8Array[];
}

interface RpcTx {
  readonly type?: Hex;
}

interface RpcBlock {
  readonly transactions: readonly RpcTx[];
}

export class L2Reader {
  readonly rpc: HttpRpcClient;

  constructor(
    readonly url: string,
    private readonly cfg: RollupConfig,
  ) {
    this.rpc = new HttpRpcClient({ url, timeoutMs: 30_000 });
  }

  async headNumber(): Promise<number> {
    return quantityToNumber(await this.rpc.call<Hex>("eth_blockNumber", []));
  }

  /** The hash of the EL's canonical block at `number`, or undefined when it has none there. */
  async hashAt(number: number): Promise<Hash | undefined> {
    const b = await this.rpc.call<{ hash: Hash } | null>("eth_getBlockByNumber", [`0x${number.toString(16)}`, false]);
    return b === null ? undefined : b.hash;
  }

  /** The block at `number`, or undefined when the EL does not have it. */
  async block(number: number): Promise<BatchBlock | undefined> {
    const b = await this.rpc.call<RpcBlock | null>("eth_getBlockByNumber", [`0x${number.toString(16)}`, true]);
    if (b === null) return undefined;
    return toBatchBlock(this.cfg, b);
  }
}

/** Converts an RPC block object (full transactions) into a `BatchBlock`. */
export function toBatchBlock(cfg: RollupConfig, b: RpcBlock): BatchBlock {
  const facts = l2BlockFactsFromRpc(b);
  const ref = l2BlockToBlockRef(cfg, facts);
  const l1OriginTime = ref.number === cfg.genesis.l2.number ? undefined : l1InfoOfL2Block(cfg, facts).time;
  const transactions = b.transactions
    .filter((tx) => tx.type !== "0x7e")
    .map((tx) => encodeRpcTransaction(tx as unknown as Record<string, unknown>));
  return {
    number: ref.number,
    hash: ref.hash,
    parentHash: ref.parentHash,
    timestamp: ref.timestamp,
    l1Origin: { number: ref.l1origin.number, hash: ref.l1origin.hash },
    ...(l1OriginTime === undefined ? {} : { l1OriginTime }),
    sequenceNumber: ref.sequenceNumber,
    transactions,
  };
}

/** The singular batch that carries `block`. */
export function singularBatchOf(block: BatchBlock): SingularBatch {
  return {
    parentHash: block.parentHash,
    epochNum: block.l1Origin.number,
    epochHash: block.l1Origin.hash,
    timestamp: block.timestamp,
    transactions: block.transactions,
  };
}
