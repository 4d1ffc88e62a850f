/**
 * Nonce and fee choice for the devnet batcher's L1 transactions. Normally the next nonce is the account's pending
 * transaction count. After an L1 reorg dropped batcher transactions, the node's pool can still hold later
 * transactions of the account whose nonces now leave a gap (they can never be mined, and they make the pending
 * count run ahead); the sender then restarts from the canonical (latest) count and replaces those stale
 * transactions, paying at least twice the fees it used before for the same nonce.
 */
import type { Address, Hash, Hex } from "supernode/core";
import type { L1Client } from "../l1/l1-client.js";

interface Fees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly maxFeePerBlobGas: bigint | undefined;
}

export interface SentTx {
  readonly hash: Hash;
  readonly nonce: number;
}

const GWEI = 1_000_000_000n;
/** Fees remembered for this many nonces back (replacement needs the previous price). */
const FEE_MEMORY = 256;

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);

export class BatcherTxSender {
  /** Set while replacing stale transactions after a reorg: the next nonce to use. */
  private recoverFrom: number | undefined;
  private readonly fees = new Map<number, Fees>();

  constructor(
    private readonly l1: L1Client,
    private readonly accountIndex: number,
    private readonly address: Address,
  ) {}

  /** After dropped transactions: the next nonces start again at the account's count on the canonical chain. */
  async restartFromCanonical(): Promise<void> {
    this.recoverFrom = await this.l1.public.getTransactionCount({ address: this.address, blockTag: "latest" });
  }

  async send(req: { readonly to: Address; readonly data?: Hex; readonly blobs?: readonly Hex[] }): Promise<SentTx> {
    const pending = await this.l1.public.getTransactionCount({ address: this.address, blockTag: "pending" });
    let nonce = pending;
    if (this.recoverFrom !== undefined) {
      if (this.recoverFrom < pending) nonce = this.recoverFrom;
      else this.recoverFrom = undefined;
    }
    const fees = await this.feesFor(nonce, req.blobs !== undefined && req.blobs.length > 0);
    let hash: Hash;
    try {
      hash = await this.l1.send(this.accountIndex, {
        ...req,
        nonce,
        fees: { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas },
        ...(fees.maxFeePerBlobGas === undefined ? {} : { maxFeePerBlobGas: fees.maxFeePerBlobGas }),
      });
    } catch (err) {
      // someone else used the nonce (or the canonical count moved on): start again from the node's counts
      if (/nonce too low/i.test(String(err))) this.recoverFrom = undefined;
      throw err;
    }
    this.fees.set(nonce, fees);
    this.fees.delete(nonce - FEE_MEMORY);
    if (this.recoverFrom !== undefined) this.recoverFrom = nonce + 1;
    return { hash, nonce };
  }

  private async feesFor(nonce: number, blobs: boolean): Promise<Fees> {
    const est = await this.l1.public.estimateFeesPerGas();
    let priority = est.maxPriorityFeePerGas + GWEI;
    let maxFee = est.maxFeePerGas * 2n + GWEI;
    let blobFee = blobs ? (await this.l1.public.getBlobBaseFee()) * 2n + GWEI : undefined;
    const prev = this.fees.get(nonce);
    if (prev !== undefined) {
      // a replacement must outbid the transaction it replaces
      priority = max(priority, prev.maxPriorityFeePerGas * 2n);
      maxFee = max(maxFee, prev.maxFeePerGas * 2n);
      if (blobFee !== undefined && prev.maxFeePerBlobGas !== undefined) {
        blobFee = max(blobFee, prev.maxFeePerBlobGas * 2n);
      }
    }
    if (maxFee < priority) maxFee = priority;
    return { maxFeePerGas: maxFee, maxPriorityFeePerGas: priority, maxFeePerBlobGas: blobFee };
  }
}
