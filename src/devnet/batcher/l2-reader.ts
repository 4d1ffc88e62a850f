/**
 * Reads unsafe L2 blocks from a chain's execution client (`eth_getBlockByNumber` with full transactions) and turns
 * each into what a batch needs: parent hash, timestamp, L1 origin (from the L1-info deposit, tx 0) and the
 * EIP-2718 bytes of every non-deposit transaction.
 */
import { quantityToNumber } from "../../core/codec/quantity.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import { encodeRpcTransaction } from "../../protocol/block/rpc-transaction.js";
import type { SingularBatch } from "../../protocol/derive/batch-singular.js";
import { JsonRpcHttpClient } from "../l1/json-rpc.js";
import { type L1InfoOrigin, l1OriginFromL1InfoInput } from "./l1-info-origin.js";

/** One L2 block as the batcher keeps it. */
export interface BatchBlock {
  readonly number: number;
  readonly hash: Hash;
  readonly parentHash: Hash;
  readonly timestamp: number;
  readonly l1Origin: { readonly number: number; readonly hash: Hash };
  /** Position of the block within its epoch (0 = first block of the epoch). */
  readonly sequenceNumber: number;
  /** EIP-2718 encodings of the non-deposit transactions, in block order. */
  readonly transactions: readonly Uint8Array[];
}

interface RpcTx {
  readonly type?: Hex;
  readonly input?: Hex;
}

interface RpcBlock {
  readonly number: Hex;
  readonly hash: Hash;
  readonly parentHash: Hash;
  readonly timestamp: Hex;
  readonly transactions: readonly RpcTx[];
}

export class L2Reader {
  readonly rpc: JsonRpcHttpClient;

  constructor(
    readonly url: string,
    private readonly decodeOrigin: (input: Hex) => L1InfoOrigin = l1OriginFromL1InfoInput,
  ) {
    this.rpc = new JsonRpcHttpClient(url);
  }

  async headNumber(): Promise<number> {
    return quantityToNumber(await this.rpc.call<Hex>("eth_blockNumber", []));
  }

  /** The block at `number`, or undefined when the EL does not have it. */
  async block(number: number): Promise<BatchBlock | undefined> {
    const b = await this.rpc.call<RpcBlock | null>("eth_getBlockByNumber", [`0x${number.toString(16)}`, true]);
    if (b === null) return undefined;
    return toBatchBlock(b, this.decodeOrigin);
  }
}

/** Converts an RPC block object (full transactions) into a `BatchBlock`. */
export function toBatchBlock(b: RpcBlock, decodeOrigin: (input: Hex) => L1InfoOrigin): BatchBlock {
  const first = b.transactions[0];
  if (first === undefined || first.type !== "0x7e" || first.input === undefined) {
    throw new Error(`L2 block ${b.hash} does not start with an L1-info deposit`);
  }
  const origin = decodeOrigin(first.input);
  const transactions = b.transactions
    .filter((tx) => tx.type !== "0x7e")
    .map((tx) => encodeRpcTransaction(tx as unknown as Record<string, unknown>));
  return {
    number: quantityToNumber(b.number),
    hash: b.hash,
    parentHash: b.parentHash,
    timestamp: quantityToNumber(b.timestamp),
    l1Origin: { number: origin.number, hash: origin.hash },
    sequenceNumber: origin.sequenceNumber,
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
