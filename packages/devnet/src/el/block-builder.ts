import { type Address, bytesToHex, type Hash, type Hex, ZERO_ADDRESS, ZERO_HASH } from "supernode/core";
import {
  type BlockHeader,
  EMPTY_OMMERS_HASH,
  EMPTY_REQUESTS_HASH,
  EMPTY_TRIE_ROOT,
  encodeHeader,
  encodeReceipt,
  keccakHex,
  mergeBlooms,
  orderedTrieRoot,
} from "supernode/protocol";
import { placeNativeStandIns } from "./evm/native-predeploys.js";
import { type BlockContext, BlockExecutor, MESSAGE_PASSER_ADDRESS } from "./executor.js";
import { INITIAL_BASE_FEE, encodeExtraData, nextBaseFee, splitEip1559Params } from "./fees.js";
import { LedgerState, LedgerWriter } from "./ledger.js";
import { addSystemContracts } from "./evm/system-contracts.js";
import type { Eip1559Constants, ElFork, ElForks, SimBlock, SimTx } from "./types.js";

/** What the block builder needs to know about the chain. */
export interface ChainParams {
  readonly chainId: bigint;
  readonly forks: ElForks;
  readonly eip1559: Eip1559Constants;
}

/** Optimism mainnet's EIP-1559 constants (elasticity 6, denominator 50, 250 from Canyon). */
export const DEFAULT_EIP1559: Eip1559Constants = { elasticity: 6, denominator: 50, denominatorCanyon: 250 };

export function forkActive(p: ChainParams, fork: ElFork, t: number): boolean {
  const at = p.forks[fork];
  return at !== undefined && t >= at;
}

/** Payload attributes as the simulator uses them (already decoded from the Engine API JSON). */
export interface BuildAttributes {
  readonly timestamp: number;
  readonly prevRandao: Hash;
  readonly suggestedFeeRecipient: Address;
  readonly withdrawals?: readonly unknown[];
  readonly parentBeaconBlockRoot?: Hash;
  readonly transactions: readonly SimTx[];
  readonly noTxPool: boolean;
  readonly gasLimit?: bigint;
  readonly eip1559Params?: Hex;
  readonly minBaseFee?: bigint;
}

export interface GenesisSpec {
  readonly timestamp: number;
  readonly gasLimit: bigint;
  readonly alloc?: Readonly<Record<string, bigint>>;
  readonly extraData?: Hex;
}

function baseFeeFor(p: ChainParams, parent: SimBlock, t: number): bigint {
  const ph = parent.header;
  return nextBaseFee(
    {
      gasLimit: ph.gasLimit,
      gasUsed: ph.gasUsed,
      baseFeePerGas: ph.baseFeePerGas ?? INITIAL_BASE_FEE,
      extraData: ph.extraData,
      ...(ph.blobGasUsed === undefined ? {} : { blobGasUsed: ph.blobGasUsed }),
    },
    p.eip1559,
    {
      canyon: forkActive(p, "canyon", t),
      parentHolocene: forkActive(p, "holocene", ph.timestamp),
      parentJovian: forkActive(p, "jovian", ph.timestamp),
    },
  );
}

/** The header extraData a block at `t` carries for the given attribute params (throws on a fork mismatch). */
export function extraDataFor(p: ChainParams, t: number, eip1559Params?: Hex, minBaseFee?: bigint): Hex {
  const holocene = forkActive(p, "holocene", t);
  const jovian = forkActive(p, "jovian", t);
  if (!holocene) {
    if (eip1559Params !== undefined) throw new Error("eip1559Params before Holocene");
    return "0x";
  }
  if (eip1559Params === undefined) throw new Error("missing eip1559Params (Holocene)");
  if (jovian && minBaseFee === undefined) throw new Error("missing minBaseFee (Jovian)");
  if (!jovian && minBaseFee !== undefined) throw new Error("minBaseFee before Jovian");
  let { denominator, elasticity } = splitEip1559Params(eip1559Params);
  if (denominator === 0 && elasticity === 0) {
    denominator = p.eip1559.denominatorCanyon;
    elasticity = p.eip1559.elasticity;
  } else if (denominator === 0) throw new Error("eip1559Params denominator must not be zero");
  return encodeExtraData({ denominator, elasticity, ...(jovian ? { minBaseFee: minBaseFee! } : {}) }, jovian);
}

function seal(
  p: ChainParams,
  parent: SimBlock,
  fields: {
    timestamp: number;
    prevRandao: Hash;
    feeRecipient: Address;
    gasLimit: bigint;
    extraData: Hex;
    baseFee: bigint;
    parentBeaconBlockRoot?: Hash;
  },
  ex: BlockExecutor,
): SimBlock {
  const t = fields.timestamp;
  const state = ex.finish();
  const canyon = forkActive(p, "canyon", t);
  const ecotone = forkActive(p, "ecotone", t);
  const isthmus = forkActive(p, "isthmus", t);
  const jovian = forkActive(p, "jovian", t);
  const receipts = ex.receipts;
  const txRaw = ex.txs.map((tx) => tx.raw);
  const header: BlockHeader = {
    parentHash: parent.hash,
    sha3Uncles: EMPTY_OMMERS_HASH,
    miner: fields.feeRecipient,
    stateRoot: state.stateRoot(),
    transactionsRoot: orderedTrieRoot(txRaw),
    receiptsRoot: orderedTrieRoot(
      receipts.map((r, i) =>
        encodeReceipt(
          {
            type: ex.txs[i]!.type,
            status: r.status,
            cumulativeGasUsed: r.cumulativeGasUsed,
            logs: r.logs,
            ...(r.depositNonce === undefined ? {} : { depositNonce: r.depositNonce }),
            ...(r.depositReceiptVersion === undefined ? {} : { depositReceiptVersion: r.depositReceiptVersion }),
          },
          r.logsBloom,
        ),
      ),
    ),
    logsBloom: bytesToHex(mergeBlooms(receipts.map((r) => r.logsBloom))),
    difficulty: 0n,
    number: parent.header.number + 1,
    gasLimit: fields.gasLimit,
    gasUsed: ex.gasUsed,
    timestamp: t,
    extraData: fields.extraData,
    mixHash: fields.prevRandao,
    nonce: "0x0000000000000000",
    baseFeePerGas: fields.baseFee,
    ...(canyon ? { withdrawalsRoot: isthmus ? state.storageRoot(MESSAGE_PASSER_ADDRESS) : EMPTY_TRIE_ROOT } : {}),
    ...(ecotone
      ? {
          blobGasUsed: jovian ? ex.blobGasUsed : 0n,
          excessBlobGas: 0n,
          parentBeaconBlockRoot: fields.parentBeaconBlockRoot ?? ZERO_HASH,
        }
      : {}),
    ...(isthmus ? { requestsHash: EMPTY_REQUESTS_HASH } : {}),
  };
  const headerRlp = encodeHeader(header);
  let size = headerRlp.length + 8;
  for (const raw of txRaw) size += raw.length + 3;
  return {
    header,
    hash: keccakHex(headerRlp),
    txs: ex.txs,
    receipts,
    state,
    withdrawals: canyon ? [] : undefined,
    size,
  };
}

/** The genesis block: the alloc's balances, the fork-dependent header fields, base fee 1 gwei. */
export function makeGenesis(p: ChainParams, g: GenesisSpec): SimBlock {
  const w = new LedgerWriter(LedgerState.empty());
  for (const [addr, bal] of Object.entries(g.alloc ?? {})) w.credit(addr.toLowerCase() as Address, bal);
  placeNativeStandIns(w, p.forks);
  const t = g.timestamp;
  addSystemContracts(w, { ecotone: forkActive(p, "ecotone", t), isthmus: forkActive(p, "isthmus", t) });
  const fakeParent = {
    hash: ZERO_HASH,
    header: { number: -1 },
  } as unknown as SimBlock;
  const ex = new BlockExecutor(w.seal(), {
    chainId: p.chainId,
    number: 0,
    timestamp: t,
    baseFee: INITIAL_BASE_FEE,
    coinbase: ZERO_ADDRESS,
    gasLimit: g.gasLimit,
    regolith: true,
    canyon: true,
    fjord: false,
    isthmus: false,
    jovian: false,
  });
  const holocene = forkActive(p, "holocene", t);
  const jovian = forkActive(p, "jovian", t);
  const extraData =
    g.extraData ??
    (holocene
      ? encodeExtraData(
          { denominator: p.eip1559.denominatorCanyon, elasticity: p.eip1559.elasticity, minBaseFee: 0n },
          jovian,
        )
      : "0x");
  return seal(
    p,
    fakeParent,
    {
      timestamp: t,
      prevRandao: ZERO_HASH,
      feeRecipient: ZERO_ADDRESS,
      gasLimit: g.gasLimit,
      extraData,
      baseFee: INITIAL_BASE_FEE,
      parentBeaconBlockRoot: ZERO_HASH,
    },
    ex,
  );
}

export function contextFor(
  p: ChainParams,
  parent: SimBlock,
  t: number,
  gasLimit: bigint,
  baseFee: bigint,
  coinbase: Address,
  prevRandao?: Hash,
  blockHash?: (n: number) => Hash | undefined,
): BlockContext {
  const parentNumber = parent.header.number;
  return {
    ecotone: forkActive(p, "ecotone", t),
    karst: forkActive(p, "karst", t),
    lagoon: forkActive(p, "lagoon", t),
    ...(prevRandao === undefined ? {} : { prevRandao }),
    // The parent's hash is always known; earlier ones when the caller can look them up.
    blockHash: (n) => (n === parentNumber ? parent.hash : blockHash?.(n)),
    chainId: p.chainId,
    number: parent.header.number + 1,
    timestamp: t,
    baseFee,
    coinbase,
    gasLimit,
    regolith: forkActive(p, "regolith", t),
    canyon: forkActive(p, "canyon", t),
    fjord: forkActive(p, "fjord", t),
    isthmus: forkActive(p, "isthmus", t),
    jovian: forkActive(p, "jovian", t),
  };
}

export class BuildError extends Error {
  override name = "BuildError";
}

/**
 * Builds a block on `parent` from attributes: the attribute transactions first (a forced user transaction that
 * does not apply fails the build), then — unless `noTxPool` — pool transactions that apply, in order.
 */
export async function buildBlock(
  p: ChainParams,
  parent: SimBlock,
  a: BuildAttributes,
  pool: readonly SimTx[],
  blockHash?: (n: number) => Hash | undefined,
): Promise<SimBlock> {
  const t = a.timestamp;
  if (t <= parent.header.timestamp) throw new BuildError("timestamp must be greater than the parent's");
  const canyon = forkActive(p, "canyon", t);
  if (canyon && a.withdrawals === undefined) throw new BuildError("missing withdrawals (Canyon)");
  if (!canyon && a.withdrawals !== undefined) throw new BuildError("withdrawals before Canyon");
  if (a.withdrawals !== undefined && a.withdrawals.length > 0) throw new BuildError("withdrawals must be empty");
  const ecotone = forkActive(p, "ecotone", t);
  if (ecotone && a.parentBeaconBlockRoot === undefined) throw new BuildError("missing parentBeaconBlockRoot");
  let extraData: Hex;
  try {
    extraData = extraDataFor(p, t, a.eip1559Params, a.minBaseFee);
  } catch (e) {
    throw new BuildError((e as Error).message);
  }
  const gasLimit = a.gasLimit ?? parent.header.gasLimit;
  const baseFee = baseFeeFor(p, parent, t);
  const ctx = contextFor(p, parent, t, gasLimit, baseFee, a.suggestedFeeRecipient, a.prevRandao, blockHash);
  const ex = new BlockExecutor(parent.state, ctx);
  ex.beginBlock(parent.hash, a.parentBeaconBlockRoot);
  for (const tx of a.transactions) {
    const r = await ex.apply(tx);
    if (!r.ok) throw new BuildError(`failed to force-include tx ${tx.hash}: ${r.reason}`);
  }
  if (!a.noTxPool) for (const tx of pool) await ex.apply(tx);
  return seal(
    p,
    parent,
    {
      timestamp: t,
      prevRandao: a.prevRandao,
      feeRecipient: a.suggestedFeeRecipient,
      gasLimit,
      extraData,
      baseFee,
      ...(ecotone ? { parentBeaconBlockRoot: a.parentBeaconBlockRoot! } : {}),
    },
    ex,
  );
}

/** The payload fields `newPayload` re-executes (transactions already decoded). */
export interface ImportFields {
  readonly timestamp: number;
  readonly prevRandao: Hash;
  readonly feeRecipient: Address;
  readonly gasLimit: bigint;
  readonly extraData: Hex;
  readonly baseFeePerGas: bigint;
  readonly parentBeaconBlockRoot?: Hash;
  readonly transactions: readonly SimTx[];
}

/**
 * Re-executes a payload on its parent. Returns the block, or an error string when a transaction does not apply or
 * the header values the client derives itself (base fee, extraData shape) disagree.
 */
export async function executePayload(
  p: ChainParams,
  parent: SimBlock,
  f: ImportFields,
  blockHash?: (n: number) => Hash | undefined,
): Promise<SimBlock | string> {
  const t = f.timestamp;
  if (t <= parent.header.timestamp) return "invalid timestamp";
  const baseFee = baseFeeFor(p, parent, t);
  if (baseFee !== f.baseFeePerGas) return `invalid baseFee: have ${f.baseFeePerGas}, want ${baseFee}`;
  const ctx = contextFor(p, parent, t, f.gasLimit, baseFee, f.feeRecipient, f.prevRandao, blockHash);
  const ex = new BlockExecutor(parent.state, ctx);
  ex.beginBlock(parent.hash, f.parentBeaconBlockRoot);
  for (const tx of f.transactions) {
    const r = await ex.apply(tx);
    if (!r.ok) return `could not apply tx ${tx.hash}: ${r.reason}`;
  }
  return seal(
    p,
    parent,
    {
      timestamp: t,
      prevRandao: f.prevRandao,
      feeRecipient: f.feeRecipient,
      gasLimit: f.gasLimit,
      extraData: f.extraData,
      baseFee,
      ...(f.parentBeaconBlockRoot === undefined ? {} : { parentBeaconBlockRoot: f.parentBeaconBlockRoot }),
    },
    ex,
  );
}
