/**
 * Helpers for the fork-activation test: an execution client's blocks over its eth JSON-RPC, an independent decoding
 * of L1-info deposits and deposit transactions (viem RLP and keccak, literal selectors and lengths from the
 * protocol, not the project's codecs), the EIP-1559 base-fee formula, the upgrade-transaction vectors of
 * `../shared/conformance/upgrade-txs`, and mining one L1 block at a chosen timestamp on anvil.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { concat, type Hex, keccak256, numberToHex, pad, toRlp } from "viem";
import { expect } from "vitest";
import { devAccount } from "supernode-devnet/l1/dev-accounts";
import { encodeDepositTx } from "../../../src/protocol/l2/deposit-tx.js";
import {
  ecotoneUpgradeDeposits,
  fjordUpgradeDeposits,
  isthmusUpgradeDeposits,
  jovianUpgradeDeposits,
} from "../../../src/protocol/l2/upgrade-txs.js";

export async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result as T;
}

export interface RpcTx {
  readonly type: Hex;
  readonly hash: Hex;
  readonly from: Hex;
  readonly to: Hex | null;
  readonly input: Hex;
  readonly gas: Hex;
  readonly value: Hex;
  readonly sourceHash?: Hex;
  readonly mint?: Hex;
  readonly isSystemTx?: boolean;
}

export interface RpcBlock {
  readonly number: Hex;
  readonly hash: Hex;
  readonly parentHash: Hex;
  readonly timestamp: Hex;
  readonly gasLimit: Hex;
  readonly gasUsed: Hex;
  readonly baseFeePerGas: Hex;
  readonly extraData: Hex;
  readonly blobGasUsed?: Hex;
  readonly withdrawalsRoot?: Hex;
  readonly parentBeaconBlockRoot?: Hex;
  readonly requestsHash?: Hex;
  readonly transactions: RpcTx[];
}

export function getBlock(url: string, n: number): Promise<RpcBlock | null> {
  return rpc<RpcBlock | null>(url, "eth_getBlockByNumber", [numberToHex(n), true]);
}

/** EIP-2718 bytes of a deposit transaction from its JSON fields: `0x7e ‖ rlp([source, from, to, mint, …])`. */
export function depositTxBytes(tx: RpcTx): Hex {
  const q = (v: Hex | undefined): Hex => (v === undefined || BigInt(v) === 0n ? "0x" : numberToHex(BigInt(v)));
  return concat([
    "0x7e",
    toRlp([
      tx.sourceHash as Hex,
      tx.from,
      tx.to ?? "0x",
      q(tx.mint),
      q(tx.value),
      q(tx.gas),
      tx.isSystemTx === true ? "0x01" : "0x",
      tx.input,
    ]),
  ]);
}

/** The four L1-info calldata formats: selector and exact length (reference op-node §2.9.1). */
export const L1_INFO_FORMATS = {
  bedrock: { selector: "0x015d8eb9", length: 260 },
  ecotone: { selector: "0x440a5e20", length: 164 },
  isthmus: { selector: "0x098999be", length: 176 },
  jovian: { selector: "0x3db6be2b", length: 178 },
} as const;
export type L1InfoFormatName = keyof typeof L1_INFO_FORMATS;

export interface DecodedL1Info {
  readonly format: L1InfoFormatName;
  readonly number: bigint;
  readonly sequenceNumber: bigint;
  /** Ecotone+ packed fields (undefined for Bedrock). */
  readonly baseFeeScalar?: number;
  readonly blobBaseFeeScalar?: number;
  readonly operatorFeeScalar?: number;
  readonly operatorFeeConstant?: bigint;
  readonly daFootprintGasScalar?: number;
  /** Bedrock words. */
  readonly l1FeeOverhead?: bigint;
  readonly l1FeeScalar?: bigint;
}

/** Decodes an L1-info deposit's calldata by its selector; throws when selector and length disagree. */
export function decodeL1Info(input: Hex): DecodedL1Info {
  const b = Buffer.from(input.slice(2), "hex");
  const sel = `0x${b.subarray(0, 4).toString("hex")}`;
  const entry = Object.entries(L1_INFO_FORMATS).find(([, f]) => f.selector === sel);
  if (entry === undefined) throw new Error(`not an L1-info selector: ${sel}`);
  const [format, f] = entry as [L1InfoFormatName, (typeof L1_INFO_FORMATS)[L1InfoFormatName]];
  if (b.length !== f.length) throw new Error(`${format} L1 info must be ${f.length} bytes, got ${b.length}`);
  const word = (i: number) => BigInt(`0x${b.subarray(4 + 32 * i, 36 + 32 * i).toString("hex")}`);
  if (format === "bedrock") {
    return { format, number: word(0), sequenceNumber: word(4), l1FeeOverhead: word(6), l1FeeScalar: word(7) };
  }
  // packed: baseFeeScalar u32, blobBaseFeeScalar u32, seq u64, time u64, number u64, baseFee, blobBaseFee,
  // hash, batcherHash (32 each), then Isthmus operatorFeeScalar u32, operatorFeeConstant u64, Jovian u16
  const out: DecodedL1Info = {
    format,
    baseFeeScalar: b.readUInt32BE(4),
    blobBaseFeeScalar: b.readUInt32BE(8),
    sequenceNumber: b.readBigUInt64BE(12),
    number: b.readBigUInt64BE(28),
  };
  if (format === "ecotone") return out;
  const isthmus = { ...out, operatorFeeScalar: b.readUInt32BE(164), operatorFeeConstant: b.readBigUInt64BE(168) };
  if (format === "isthmus") return isthmus;
  return { ...isthmus, daFootprintGasScalar: b.readUInt16BE(176) };
}

/** Source hash of a user deposit: `keccak(0 ‖ keccak(l1BlockHash ‖ logIndex))`. */
export function userDepositSourceHash(l1BlockHash: Hex, logIndex: number): Hex {
  const inner = keccak256(concat([l1BlockHash, pad(numberToHex(logIndex), { size: 32 })]));
  return keccak256(concat([pad("0x00", { size: 32 }), inner]));
}

/** Source hash of an upgrade deposit: `keccak(2 ‖ keccak(utf8(intent)))`. */
export function upgradeSourceHash(intent: string): Hex {
  const inner = keccak256(new TextEncoder().encode(intent));
  return keccak256(concat([pad("0x02", { size: 32 }), inner]));
}

/**
 * The base fee of the block after `parent` (EIP-1559): `denominator`/`elasticity` as the parent's fork dictates,
 * `used` the gas the parent counts (Jovian: max(gasUsed, blobGasUsed)), clamped to `minBaseFee`.
 */
export function nextBaseFeeEip1559(p: {
  baseFee: bigint;
  gasLimit: bigint;
  used: bigint;
  denominator: bigint;
  elasticity: bigint;
  minBaseFee?: bigint;
}): bigint {
  const target = p.gasLimit / p.elasticity;
  let next = p.baseFee;
  if (p.used > target) {
    const d = (p.baseFee * (p.used - target)) / target / p.denominator;
    next = p.baseFee + (d < 1n ? 1n : d);
  } else if (p.used < target) {
    const d = (p.baseFee * (target - p.used)) / target / p.denominator;
    next = p.baseFee > d ? p.baseFee - d : 0n;
  }
  return p.minBaseFee !== undefined && next < p.minBaseFee ? p.minBaseFee : next;
}

/** `../shared/conformance/upgrade-txs` relative to the project root, or undefined (with a printed note). */
export function upgradeTxVectorsDir(): string | undefined {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
  const dir = join(root, "../shared/conformance/upgrade-txs");
  if (existsSync(dir)) return dir;
  console.warn(`[fork-activation] ${dir} not found: upgrade txs are compared with the project's builders only`);
  return undefined;
}

export function readVector(dir: string, name: string): Hex {
  const t = readFileSync(join(dir, `${name}.hex`), "utf8")
    .trim()
    .replace(/\s+/g, "")
    .toLowerCase();
  return (t.startsWith("0x") ? t : `0x${t}`) as Hex;
}

/**
 * Index (into `l1Times`, the timestamps of the L1 genesis and the blocks after it) of the L1 origin a sequencer
 * picks for the L2 block at `g + k` when it builds from genesis with one-second blocks and every block of `l1Times`
 * known: the origin advances by at most one block per L2 block, to a block whose time has been reached.
 */
export function sequencerOriginIndex(l1Times: readonly number[], g: number, k: number): number {
  let i = 0;
  for (let ts = g + 1; ts <= g + k; ts++) {
    const next = l1Times[i + 1];
    if (next !== undefined && next <= ts) i++;
  }
  return i;
}

/**
 * Mines one L1 block at exactly `timestamp` holding the transactions `send` submits: interval mining is paused (it
 * stays paused; the caller resumes it), `send` is started, its transactions are waited for in anvil's pool, and
 * the block is mined with `evm_mine`. Later blocks continue from that timestamp.
 */
export async function mineL1BlockAt<T>(
  rpcUrl: string,
  timestamp: number,
  expectedTxs: number,
  send: () => Promise<T>,
): Promise<T> {
  await rpc(rpcUrl, "evm_setIntervalMining", [0]);
  const done = send();
  const until = Date.now() + 10_000;
  for (;;) {
    const s = await rpc<{ pending: Hex }>(rpcUrl, "txpool_status");
    if (BigInt(s.pending) >= BigInt(expectedTxs)) break;
    if (Date.now() > until) throw new Error("transactions did not reach the L1 pool");
    await new Promise((r) => setTimeout(r, 20));
  }
  await rpc(rpcUrl, "evm_mine", [timestamp]);
  return await done;
}

export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Keeps a sequencer's transaction pool fed: one signed transfer to `to` every `everyMs` from dev account
 * `accountIndex` until `stop()`, which returns how many the pool accepted.
 */
export function userTraffic(o: {
  elHttpUrl: string;
  chainId: number;
  accountIndex: number;
  to: Hex;
  everyMs: number;
}): { stop(): Promise<number> } {
  const acct = devAccount(o.accountIndex).account;
  let running = true;
  let nonce = 0;
  const loop = (async () => {
    while (running) {
      const raw = await acct.signTransaction({
        chainId: o.chainId,
        type: "eip1559",
        nonce,
        to: o.to,
        value: 1000n + BigInt(nonce),
        gas: 21_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000n,
      });
      try {
        await rpc(o.elHttpUrl, "eth_sendRawTransaction", [raw]);
        nonce++;
      } catch {
        // a stopping EL; the next round retries the same nonce
      }
      await new Promise((r) => setTimeout(r, o.everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return nonce;
    },
  };
}

export const UPGRADE_FORKS = ["ecotone", "fjord", "isthmus", "jovian"] as const;
export type UpgradeFork = (typeof UPGRADE_FORKS)[number];

/** Expected EIP-2718 bytes of each fork's upgrade deposits: conformance vectors when present, else the builders. */
export function expectedUpgradeTxs(dir: string | undefined): Record<UpgradeFork, Hex[]> {
  const built = (txs: ReturnType<typeof ecotoneUpgradeDeposits>): Hex[] =>
    txs.map((t) => `0x${Buffer.from(encodeDepositTx(t)).toString("hex")}` as Hex);
  const out: Record<UpgradeFork, Hex[]> = {
    ecotone: built(ecotoneUpgradeDeposits()),
    fjord: built(fjordUpgradeDeposits()),
    isthmus: built(isthmusUpgradeDeposits()),
    jovian: built(jovianUpgradeDeposits()),
  };
  if (dir !== undefined) {
    // Full-transaction vectors exist for Ecotone, Fjord and Isthmus; for Jovian the published creation code.
    const counts = { ecotone: 6, fjord: 3, isthmus: 8 } as const;
    for (const [fork, n] of Object.entries(counts) as [keyof typeof counts, number][]) {
      const vectors = Array.from({ length: n }, (_, i) => readVector(dir, `${fork}_tx_${i}`));
      expect(out[fork]).toEqual(vectors);
      out[fork] = vectors;
    }
    const jovian = jovianUpgradeDeposits();
    expect(jovian[0]?.data).toBe(readVector(dir, "jovian-l1-block-deployment"));
    expect(jovian[2]?.data).toBe(readVector(dir, "jovian-gas-price-oracle-deployment"));
  }
  return out;
}

/** Fork offsets (seconds after L2 genesis) of the forks these checks follow. */
export type ForkOffsets = Readonly<
  Record<"canyon" | "ecotone" | "holocene" | "isthmus" | "jovian", number> & Record<string, number>
>;

/** The L1-info format of the L2 block at `ts`: each activation block keeps the previous format (op-node). */
export function l1InfoFormatAt(ts: number, g: number, o: ForkOffsets): L1InfoFormatName {
  if (ts > g + o.jovian) return "jovian";
  if (ts > g + o.isthmus) return "isthmus";
  return ts > g + o.ecotone ? "ecotone" : "bedrock";
}

/**
 * The base fee of the block at `ts` after `parent`: under a pre-Holocene parent the chain constants (denominator 50,
 * 250 from Canyon by the new block's time; elasticity 6), under a Holocene parent its extraData parameters; a Jovian
 * parent counts max(gasUsed, blobGasUsed) and clamps to its minimum base fee.
 */
export function expectedBaseFee(
  parent: RpcBlock,
  ts: number,
  g: number,
  o: ForkOffsets,
): { expected: bigint; denominator: bigint; parent: { baseFee: bigint; gasLimit: bigint; used: bigint } } {
  const pts = Number(BigInt(parent.timestamp));
  const pHolocene = pts >= g + o.holocene;
  const pJovian = pts >= g + o.jovian;
  const px = parent.extraData;
  const denominator = pHolocene ? BigInt(`0x${px.slice(4, 12)}`) : ts >= g + o.canyon ? 250n : 50n;
  const elasticity = pHolocene ? BigInt(`0x${px.slice(12, 20)}`) : 6n;
  const gasUsed = BigInt(parent.gasUsed);
  const blobGasUsed = BigInt(parent.blobGasUsed ?? "0x0");
  const p = {
    baseFee: BigInt(parent.baseFeePerGas),
    gasLimit: BigInt(parent.gasLimit),
    used: pJovian && blobGasUsed > gasUsed ? blobGasUsed : gasUsed,
  };
  const min = pJovian ? { minBaseFee: BigInt(`0x${px.slice(20, 36)}`) } : {};
  return { expected: nextBaseFeeEip1559({ ...p, denominator, elasticity, ...min }), denominator, parent: p };
}
