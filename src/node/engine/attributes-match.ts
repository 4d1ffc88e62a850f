/**
 * `AttributesMatchBlock` (op-node §2.12.3): does the block the EL already has at `parent + 1` equal what the
 * derived attributes would build? Returns undefined on a match, or the reason for the mismatch.
 */
import { bytesToHex, hexEqualsBytes } from "../../core/codec/hex.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import { keccak } from "../../protocol/block/keccak.js";
import { isForkActive, type RollupConfig } from "../../protocol/rollup-config.js";
import { EMPTY_TRIE_ROOT } from "../../protocol/block/trie.js";
import { decodeEip1559Params, type Eip1559Params } from "../../protocol/l1/fee-scalars.js";
import { decodeExtraData, type ExtraDataParams } from "../../protocol/l2/extra-data.js";
import type { ComparedPayloadFields } from "../../protocol/engine-api-types.js";
import type { AttributesFields, ExecutionPayloadEnvelope, L2BlockHeader, PayloadAttributes } from "../ports.js";

/**
 * Equal hex strings in either case. The execution client and the attributes write lower case, so the common case
 * is decided by `===` without allocating lower-cased copies.
 */
function sameHex(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return a.toLowerCase() === b.toLowerCase();
}

/** Expected EIP-1559 (denominator, elasticity) for attributes' `eip1559Params`: (0,0) means the chain constants. */
function effectiveEip1559(cfg: RollupConfig, params: Hex): Eip1559Params | string {
  let p: Eip1559Params;
  try {
    p = decodeEip1559Params(params);
  } catch {
    return `eip1559Params must be 8 bytes, got ${params}`;
  }
  if (p.denominator === 0 && p.elasticity !== 0) return "eip1559Params: zero denominator with non-zero elasticity";
  if (p.denominator === 0 && p.elasticity === 0) {
    const c = cfg.chain_op_config;
    if (c === undefined) return "eip1559Params are zero but the rollup config has no chain_op_config";
    return { denominator: c.eip1559DenominatorCanyon ?? c.eip1559Denominator, elasticity: c.eip1559Elasticity };
  }
  return p;
}

function checkExtraData(cfg: RollupConfig, attrs: AttributesFields, extraData: Hex, ts: number): string | undefined {
  if (attrs.eip1559Params === undefined) {
    return extraData === "0x" ? undefined : `unexpected extraData ${extraData}`;
  }
  const jovian = isForkActive(cfg, "jovian", ts);
  const want = effectiveEip1559(cfg, attrs.eip1559Params);
  if (typeof want === "string") return want;
  let got: ExtraDataParams;
  try {
    got = decodeExtraData(extraData);
  } catch (e) {
    return `extraData invalid: ${(e as Error).message}`;
  }
  if ((got.minBaseFee !== undefined) !== jovian) return `extraData has wrong version for the fork: ${extraData}`;
  if (got.denominator !== want.denominator || got.elasticity !== want.elasticity) {
    return `eip1559 params differ: block (${got.denominator},${got.elasticity}) vs attributes (${want.denominator},${want.elasticity})`;
  }
  if (got.minBaseFee !== undefined) {
    if (attrs.minBaseFee === undefined) return "attributes lack minBaseFee (Jovian)";
    if (got.minBaseFee !== attrs.minBaseFee)
      return `minBaseFee differs: block ${got.minBaseFee} vs ${attrs.minBaseFee}`;
  }
  return undefined;
}

/** The payload fields compared besides the transactions (a payload or a header read without transactions). */
type BlockFields = ComparedPayloadFields;

function matchFields(
  cfg: RollupConfig,
  attrs: AttributesFields,
  parentHash: Hex,
  b: BlockFields,
  parentBeaconBlockRoot: Hex | undefined,
  txCount: number,
  attrTxCount: number,
  txDiffers: (i: number) => boolean,
): string | undefined {
  if (!sameHex(b.parentHash, parentHash)) return `parent hash differs: ${b.parentHash} vs ${parentHash}`;
  if (b.timestamp !== attrs.timestamp) return `timestamp differs: ${b.timestamp} vs ${attrs.timestamp}`;
  if (!sameHex(b.prevRandao, attrs.prevRandao)) return "prevRandao differs";
  if (txCount !== attrTxCount) return `transaction count differs: ${txCount} vs ${attrTxCount}`;
  for (let i = 0; i < txCount; i++) {
    if (txDiffers(i)) return `transaction ${i} differs`;
  }
  if (b.gasLimit !== attrs.gasLimit) return `gas limit differs: ${b.gasLimit} vs ${attrs.gasLimit}`;
  const canyon = isForkActive(cfg, "canyon", b.timestamp);
  const isthmus = isForkActive(cfg, "isthmus", b.timestamp);
  if (canyon) {
    if (b.withdrawals === undefined || b.withdrawals.length !== 0) return "block withdrawals must be an empty list";
    if (attrs.withdrawals === undefined || attrs.withdrawals.length !== 0) return "attributes withdrawals must be []";
    if (!isthmus && b.withdrawalsRoot !== undefined && !sameHex(b.withdrawalsRoot, EMPTY_TRIE_ROOT)) {
      return "pre-Isthmus withdrawalsRoot must be the empty trie root";
    }
  } else if (attrs.withdrawals !== undefined) {
    return "pre-Canyon attributes must not carry withdrawals";
  }
  if (isthmus && b.withdrawalsRoot === undefined) return "Isthmus block lacks withdrawalsRoot";
  if (!sameHex(parentBeaconBlockRoot, attrs.parentBeaconBlockRoot)) return "parentBeaconBlockRoot differs";
  if (!sameHex(b.feeRecipient, attrs.suggestedFeeRecipient)) return "fee recipient differs";
  return checkExtraData(cfg, attrs, b.extraData, b.timestamp);
}

/** Against the EL's whole block: its transactions compared byte for byte. */
export function attributesMatchBlock(
  cfg: RollupConfig,
  attrs: PayloadAttributes,
  parentHash: Hex,
  envelope: ExecutionPayloadEnvelope,
): string | undefined {
  const b = envelope.executionPayload;
  const txs = b.transactions;
  const want = attrs.txBytes;
  return matchFields(
    cfg,
    attrs.fields,
    parentHash,
    b,
    envelope.parentBeaconBlockRoot,
    txs.length,
    want.length,
    (i) => !hexEqualsBytes(txs[i]!, want[i]!),
  );
}

/**
 * The keccak256 hashes of the attributes' transactions (of their EIP-2718 bytes, as the EL hashes them), computed
 * only as far as a comparison needs them.
 */
export class AttributesTxHashes {
  private readonly hashes: (Uint8Array | undefined)[] = [];
  /** Number of transactions in the attributes. */
  readonly count: number;

  constructor(readonly attrs: PayloadAttributes) {
    this.count = attrs.txBytes.length;
  }

  private digest(i: number): Uint8Array {
    let h = this.hashes[i];
    if (h === undefined) {
      h = keccak(this.attrs.txBytes[i]!);
      this.hashes[i] = h;
    }
    return h;
  }

  /** The hash of transaction `i`. */
  at(i: number): Hash {
    return bytesToHex(this.digest(i));
  }

  /** Whether transaction `i` hashes to `hash` (0x-hex, either case). */
  matches(i: number, hash: string): boolean {
    return hexEqualsBytes(hash, this.digest(i));
  }
}

/**
 * Against the EL's block read without its transactions (header and transaction hashes): each attribute
 * transaction's hash must be the block's. Equal hashes mean equal transactions, so a matching block's L1-info
 * deposit is the attributes' one (its ref follows from the attributes' origin and sequence number).
 */
export function attributesMatchHeader(
  cfg: RollupConfig,
  hashes: AttributesTxHashes,
  parentHash: Hex,
  header: L2BlockHeader,
): string | undefined {
  const txs = header.transactionHashes;
  return matchFields(
    cfg,
    hashes.attrs.fields,
    parentHash,
    header,
    header.parentBeaconBlockRoot,
    txs.length,
    hashes.count,
    (i) => !hashes.matches(i, txs[i]!),
  );
}
