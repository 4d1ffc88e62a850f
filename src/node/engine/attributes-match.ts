/**
 * `AttributesMatchBlock` (op-node §2.12.3): does the block the EL already has at `parent + 1` equal what the
 * derived attributes would build? Returns undefined on a match, or the reason for the mismatch.
 */
import type { Hex } from "../../core/types/primitives.js";
import { isForkActive, type RollupConfig } from "../../protocol/rollup-config.js";
import { EMPTY_TRIE_ROOT } from "../../protocol/block/trie.js";
import type { ExecutionPayloadEnvelope, PayloadAttributes } from "../ports.js";

const lc = (h: string | undefined) => h?.toLowerCase();

/** Expected EIP-1559 (denominator, elasticity) for attributes' `eip1559Params`: (0,0) means the chain constants. */
function effectiveEip1559(cfg: RollupConfig, params: Hex): { den: number; ela: number } | string {
  if (params.length !== 18) return `eip1559Params must be 8 bytes, got ${params}`;
  const den = Number.parseInt(params.slice(2, 10), 16);
  const ela = Number.parseInt(params.slice(10, 18), 16);
  if (den === 0 && ela !== 0) return "eip1559Params: zero denominator with non-zero elasticity";
  if (den === 0 && ela === 0) {
    const c = cfg.chain_op_config;
    if (c === undefined) return "eip1559Params are zero but the rollup config has no chain_op_config";
    return { den: c.eip1559DenominatorCanyon ?? c.eip1559Denominator, ela: c.eip1559Elasticity };
  }
  return { den, ela };
}

function checkExtraData(cfg: RollupConfig, attrs: PayloadAttributes, extraData: Hex, ts: number): string | undefined {
  if (attrs.eip1559Params === undefined) {
    return extraData === "0x" ? undefined : `unexpected extraData ${extraData}`;
  }
  const want = effectiveEip1559(cfg, attrs.eip1559Params);
  if (typeof want === "string") return want;
  const jovian = isForkActive(cfg, "jovian", ts);
  const x = extraData.toLowerCase();
  const expectLen = jovian ? 2 + 17 * 2 : 2 + 9 * 2;
  if (x.length !== expectLen) return `extraData has wrong length for the fork: ${extraData}`;
  const version = Number.parseInt(x.slice(2, 4), 16);
  if (version !== (jovian ? 1 : 0)) return `extraData has wrong version ${version}`;
  const den = Number.parseInt(x.slice(4, 12), 16);
  const ela = Number.parseInt(x.slice(12, 20), 16);
  if (den !== want.den || ela !== want.ela) {
    return `eip1559 params differ: block (${den},${ela}) vs attributes (${want.den},${want.ela})`;
  }
  if (jovian) {
    const minBaseFee = BigInt(`0x${x.slice(20, 36)}`);
    if (attrs.minBaseFee === undefined) return "attributes lack minBaseFee (Jovian)";
    if (minBaseFee !== attrs.minBaseFee) return `minBaseFee differs: block ${minBaseFee} vs ${attrs.minBaseFee}`;
  }
  return undefined;
}

export function attributesMatchBlock(
  cfg: RollupConfig,
  attrs: PayloadAttributes,
  parentHash: Hex,
  envelope: ExecutionPayloadEnvelope,
): string | undefined {
  const b = envelope.executionPayload;
  if (lc(b.parentHash) !== lc(parentHash)) return `parent hash differs: ${b.parentHash} vs ${parentHash}`;
  if (b.timestamp !== attrs.timestamp) return `timestamp differs: ${b.timestamp} vs ${attrs.timestamp}`;
  if (lc(b.prevRandao) !== lc(attrs.prevRandao)) return "prevRandao differs";
  if (b.transactions.length !== attrs.transactions.length) {
    return `transaction count differs: ${b.transactions.length} vs ${attrs.transactions.length}`;
  }
  for (let i = 0; i < b.transactions.length; i++) {
    if (lc(b.transactions[i]) !== lc(attrs.transactions[i])) return `transaction ${i} differs`;
  }
  if (b.gasLimit !== attrs.gasLimit) return `gas limit differs: ${b.gasLimit} vs ${attrs.gasLimit}`;
  const canyon = isForkActive(cfg, "canyon", b.timestamp);
  const isthmus = isForkActive(cfg, "isthmus", b.timestamp);
  if (canyon) {
    if (b.withdrawals === undefined || b.withdrawals.length !== 0) return "block withdrawals must be an empty list";
    if (attrs.withdrawals === undefined || attrs.withdrawals.length !== 0) return "attributes withdrawals must be []";
    if (!isthmus && b.withdrawalsRoot !== undefined && lc(b.withdrawalsRoot) !== EMPTY_TRIE_ROOT) {
      return "pre-Isthmus withdrawalsRoot must be the empty trie root";
    }
  } else if (attrs.withdrawals !== undefined) {
    return "pre-Canyon attributes must not carry withdrawals";
  }
  if (isthmus && b.withdrawalsRoot === undefined) return "Isthmus block lacks withdrawalsRoot";
  if (lc(envelope.parentBeaconBlockRoot) !== lc(attrs.parentBeaconBlockRoot)) return "parentBeaconBlockRoot differs";
  if (lc(b.feeRecipient) !== lc(attrs.suggestedFeeRecipient)) return "fee recipient differs";
  return checkExtraData(cfg, attrs, b.extraData, b.timestamp);
}
