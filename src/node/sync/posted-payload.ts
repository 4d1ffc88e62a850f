/**
 * Admission checks for a payload posted with `admin_postUnsafePayload` (op-node `adminAPI.PostUnsafePayload`):
 * the block hash is recomputed from the payload (op-node §3.3) and must match; the payload must also carry an
 * L1-info deposit the node can read (otherwise it could never be inserted). Errors are the RPC errors the caller
 * returns: a bad block hash is -32000 with op-node's message, a malformed payload -32602.
 */
import type { L2BlockRef } from "../../core/types/block-ref.js";
import { computePayloadBlockHash, type ExecutionPayload as HashedPayload } from "../../protocol/block/payload-hash.js";
import type { Withdrawal } from "../../protocol/block/withdrawal.js";
import { NodeRpcError } from "../errors.js";
import type { ExecutionPayloadEnvelope } from "../ports.js";

const invalid = (msg: string): NodeRpcError => new NodeRpcError("INVALID_PARAMS", msg, -32602);

function isWithdrawal(w: unknown): w is Withdrawal {
  const o = w as Partial<Withdrawal> | null;
  return (
    o !== null &&
    typeof o === "object" &&
    typeof o.index === "bigint" &&
    typeof o.validatorIndex === "bigint" &&
    typeof o.amount === "bigint" &&
    typeof o.address === "string"
  );
}

/** The payload in the shape the block-hash computation needs (all V2+ fields present), or a -32602 error. */
export function hashablePayload(env: ExecutionPayloadEnvelope): HashedPayload {
  const p = env.executionPayload;
  const need = <T>(v: T | undefined, name: string): T => {
    if (v === undefined) throw invalid(`invalid payload: missing ${name}`);
    return v;
  };
  if (p.withdrawals !== undefined && !p.withdrawals.every(isWithdrawal)) {
    throw invalid("invalid payload: malformed withdrawals");
  }
  return {
    parentHash: p.parentHash,
    feeRecipient: p.feeRecipient,
    stateRoot: p.stateRoot,
    receiptsRoot: need(p.receiptsRoot, "receiptsRoot"),
    logsBloom: need(p.logsBloom, "logsBloom"),
    prevRandao: p.prevRandao,
    blockNumber: p.blockNumber,
    gasLimit: p.gasLimit,
    gasUsed: need(p.gasUsed, "gasUsed"),
    timestamp: p.timestamp,
    extraData: p.extraData,
    baseFeePerGas: need(p.baseFeePerGas, "baseFeePerGas"),
    blockHash: p.blockHash,
    transactions: p.transactions,
    ...(p.withdrawals === undefined ? {} : { withdrawals: p.withdrawals as readonly Withdrawal[] }),
    ...(p.blobGasUsed === undefined ? {} : { blobGasUsed: p.blobGasUsed }),
    ...(p.excessBlobGas === undefined ? {} : { excessBlobGas: p.excessBlobGas }),
    ...(p.withdrawalsRoot === undefined ? {} : { withdrawalsRoot: p.withdrawalsRoot }),
  };
}

/** Throws the RPC error for a payload that must not be queued; returns its block ref otherwise. */
export function checkPostedPayload(
  env: ExecutionPayloadEnvelope,
  refFromPayload: (env: ExecutionPayloadEnvelope) => L2BlockRef,
): L2BlockRef {
  const p = env.executionPayload;
  let actual: string;
  try {
    actual = computePayloadBlockHash(hashablePayload(env), env.parentBeaconBlockRoot);
  } catch (err) {
    if (err instanceof NodeRpcError) throw err;
    throw invalid(`invalid payload: ${(err as Error).message}`);
  }
  if (actual.toLowerCase() !== p.blockHash.toLowerCase()) {
    throw new NodeRpcError(
      "BAD_BLOCK_HASH",
      `payload has bad block hash: ${p.blockHash}, actual block hash is: ${actual}`,
    );
  }
  try {
    return refFromPayload(env);
  } catch (err) {
    throw invalid(`invalid payload: cannot read its L1-info deposit: ${(err as Error).message}`);
  }
}
