import { RPC_SERVER_ERROR, RpcError } from "supernode/json-rpc";
import type { LedgerState } from "./ledger.js";
import { intrinsicGas } from "./tx-decode.js";
import type { SimBlock, SimTx, Variant } from "./types.js";

/** EIP-1474 "transaction rejected": variant A's code for a transaction its pool refuses for its sender's state. */
export const RPC_TRANSACTION_REJECTED = -32003;

/**
 * The checks a real client's pool makes when a signed transaction is submitted, in geth's order: the block gas
 * limit, intrinsic gas, the fee cap against the head's base fee, the sender's nonce and its balance against
 * `gas × fee cap + value`. Returns the error to answer with, worded as each variant's client words it (variant B as
 * geth's pool, variant A as reth's, whose sender-state errors carry -32003), or `undefined` when the transaction
 * may enter the pool. A future nonce passes (the pool keeps it queued).
 */
export function poolRejection(variant: Variant, tx: SimTx, head: SimBlock, state: LedgerState): RpcError | undefined {
  const geth = variant === "b";
  const sender = geth ? RPC_SERVER_ERROR : RPC_TRANSACTION_REJECTED;
  if (tx.gas > head.header.gasLimit) return new RpcError(RPC_SERVER_ERROR, "exceeds block gas limit");
  const intrinsic = intrinsicGas(tx.input, tx.to === null);
  if (tx.gas < intrinsic) {
    const detail = `: gas ${tx.gas}, minimum needed ${intrinsic}`;
    return new RpcError(RPC_SERVER_ERROR, `intrinsic gas too low${geth ? detail : ""}`);
  }
  const feeCap = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
  const baseFee = head.header.baseFeePerGas ?? 0n;
  if (feeCap < baseFee) {
    const detail = `: address ${tx.from}, maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`;
    return new RpcError(RPC_SERVER_ERROR, `max fee per gas less than block base fee${geth ? detail : ""}`);
  }
  const acc = state.account(tx.from);
  if (tx.nonce !== undefined && tx.nonce < acc.nonce)
    return new RpcError(sender, `nonce too low: next nonce ${acc.nonce}, tx nonce ${tx.nonce}`);
  const cost = tx.gas * feeCap + tx.value;
  if (acc.balance < cost) {
    const detail = geth
      ? `balance ${acc.balance}, tx cost ${cost}, overshot ${cost - acc.balance}`
      : `have ${acc.balance} want ${cost}`;
    return new RpcError(sender, `insufficient funds for gas * price + value: ${detail}`);
  }
  return undefined;
}
