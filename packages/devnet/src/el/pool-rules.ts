import { RPC_SERVER_ERROR, RpcError } from "supernode/json-rpc";
import { type ChainParams, forkActive } from "./block-builder.js";
import { type L1FeeParams, l1FeeFor, operatorFee, parseL1FeeParams } from "./fees.js";
import type { LedgerState } from "./ledger.js";
import { MAX_TX_GAS, requiredGasOf } from "./evm/gas.js";
import type { SimBlock, SimTx, Variant } from "./types.js";

/** EIP-1474 "transaction rejected": variant A's code for a transaction its pool refuses for its sender's state. */
export const RPC_TRANSACTION_REJECTED = -32003;

/** The L1 fee parameters a block's L1-info deposit carries (undefined for genesis and pre-Bedrock-style blocks). */
export function l1FeeParamsOf(block: SimBlock): L1FeeParams | undefined {
  const info = block.txs[0];
  return info?.deposit === undefined ? undefined : parseL1FeeParams(info.input);
}

/**
 * What a transaction can cost its sender beyond `gas × fee cap + value` at the head's L1 fee parameters: the L1 data
 * fee and (Isthmus) the operator fee for all its gas, as op-geth's pool adds them.
 */
function rollupCost(p: ChainParams, tx: SimTx, head: SimBlock): bigint {
  const l1 = l1FeeParamsOf(head);
  if (l1 === undefined) return 0n;
  const t = head.header.timestamp;
  const flags = {
    regolith: forkActive(p, "regolith", t),
    fjord: forkActive(p, "fjord", t),
    isthmus: forkActive(p, "isthmus", t),
    jovian: forkActive(p, "jovian", t),
  };
  return l1FeeFor(tx.raw, l1, flags).l1Fee + (flags.isthmus ? operatorFee(tx.gas, l1, flags.jovian) : 0n);
}

/**
 * The checks a real client's pool makes when a signed transaction is submitted, in geth's order: the block gas
 * limit, intrinsic gas, the fee cap against the head's base fee, the sender's nonce and its balance against
 * `gas × fee cap + value` plus the L1 data and operator fees (what the block builder then requires). Returns the error to answer with, worded as each variant's client words it (variant B as
 * geth's pool, variant A as reth's, whose sender-state errors carry -32003), or `undefined` when the transaction
 * may enter the pool. A future nonce passes (the pool keeps it queued).
 */
export function poolRejection(
  variant: Variant,
  params: ChainParams,
  tx: SimTx,
  head: SimBlock,
  state: LedgerState,
): RpcError | undefined {
  const geth = variant === "b";
  const sender = geth ? RPC_SERVER_ERROR : RPC_TRANSACTION_REJECTED;
  if (tx.gas > head.header.gasLimit) return new RpcError(RPC_SERVER_ERROR, "exceeds block gas limit");
  const t = head.header.timestamp;
  if (tx.type === 4) {
    // geth's and reth's pools: set-code transactions from Prague (Isthmus), with authorizations, not creating
    if (!forkActive(params, "isthmus", t)) return new RpcError(RPC_SERVER_ERROR, "transaction type not supported");
    if ((tx.authorizationList?.length ?? 0) === 0)
      return new RpcError(RPC_SERVER_ERROR, "EIP-7702 transaction with empty auth list");
    if (tx.to === null) return new RpcError(RPC_SERVER_ERROR, "EIP-7702 transaction cannot be used to create contract");
  }
  if (forkActive(params, "karst", t) && tx.gas > MAX_TX_GAS)
    return new RpcError(RPC_SERVER_ERROR, `transaction gas limit too high (cap: ${MAX_TX_GAS}, tx: ${tx.gas})`);
  // the block builder's intrinsic gas (access lists, init code, authorizations) and, from Isthmus, the EIP-7623 floor
  const rules = { shanghai: forkActive(params, "canyon", t), prague: forkActive(params, "isthmus", t) };
  const intrinsic = requiredGasOf(tx, rules);
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
  const cost = tx.gas * feeCap + tx.value + rollupCost(params, tx, head);
  if (acc.balance < cost) {
    const detail = geth
      ? `balance ${acc.balance}, tx cost ${cost}, overshot ${cost - acc.balance}`
      : `have ${acc.balance} want ${cost}`;
    return new RpcError(sender, `insufficient funds for gas * price + value: ${detail}`);
  }
  return undefined;
}
