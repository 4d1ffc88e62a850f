import { DecodeError } from "../../core/errors/supernode-error.js";
import type { Address, Hex } from "../../core/types/primitives.js";
import { upgradeDepositSourceHash } from "../l1/source-hash.js";
import { type DepositTx, encodeDepositTx } from "./deposit-tx.js";

/**
 * Network Upgrade Transaction (NUT) bundles, from Karst on: a fork's upgrade deposits as op-node embeds them
 * (`op-core/nuts/bundles/<fork>_nut_bundle.json`): `{"metadata":{"version":"1.0.0"},"transactions":[{intent, from,
 * to, data, gasLimit}, …]}`. Each becomes a deposit with source hash = upgrade domain over `"<Label> <i>: <intent>"`
 * (the label capitalised), mint 0, value 0, gas = gasLimit, not a system transaction; the bundle's total gas is added
 * to its activation block's gas limit. The bundle text itself is product data read at start (config/nut-bundles.ts).
 */

/** The forks whose upgrade deposits come from a NUT bundle. */
export type NutFork = "karst" | "lagoon";

/**
 * The label that qualifies each intent: the fork name, except Lagoon, whose bundle keeps its concept name "interop"
 * (upstream kept the source hashes of the Interop → Lagoon rename, op-node `UpgradeTransactions`).
 */
export const NUT_LABEL: Readonly<Record<NutFork, string>> = { karst: "Karst", lagoon: "Interop" };

/** Each bundle's total gas, pinned with its sha256 (config/nut-bundles.ts checks both at load). */
export const NUT_UPGRADE_GAS: Readonly<Record<NutFork, bigint>> = { karst: 55_370_657n, lagoon: 60_503_172n };

export interface NutBundle {
  readonly fork: NutFork;
  readonly deposits: readonly DepositTx[];
  /** The deposits' EIP-2718 encodings, in bundle order. */
  readonly encoded: readonly Uint8Array[];
  /** Sum of the transactions' gas limits. */
  readonly gas: bigint;
}

/** The bundles a chain needs (absent when it schedules no such fork). */
export interface NutBundles {
  readonly karst?: NutBundle | undefined;
  readonly lagoon?: NutBundle | undefined;
}

const NUT_BUNDLE_VERSION = "1.0.0";

/** Go's JSON decoder matches keys case-insensitively; the bundle's keys are read the same way. */
function field(o: Record<string, unknown>, name: string): unknown {
  if (name in o) return o[name];
  const k = Object.keys(o).find((key) => key.toLowerCase() === name.toLowerCase());
  return k === undefined ? undefined : o[k];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function address(v: unknown, what: string): Address {
  if (typeof v !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(v)) throw new DecodeError(`${what} must be an address`);
  return v.toLowerCase() as Address;
}

function nutTx(v: unknown, label: string, i: number): DepositTx {
  const at = `NUT bundle tx ${i}`;
  if (!isObject(v)) throw new DecodeError(`${at}: not an object`);
  const intent = field(v, "intent");
  if (typeof intent !== "string" || intent === "") throw new DecodeError(`${at}: missing intent`);
  const to = field(v, "to");
  const data = field(v, "data") ?? "0x";
  if (typeof data !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(data)) throw new DecodeError(`${at}: bad data`);
  const gas = field(v, "gasLimit");
  if (typeof gas !== "number" || !Number.isSafeInteger(gas) || gas < 0) throw new DecodeError(`${at}: bad gasLimit`);
  return {
    sourceHash: upgradeDepositSourceHash(`${label} ${i}: ${intent}`),
    from: address(field(v, "from"), `${at} from`),
    to: to === null || to === undefined ? null : address(to, `${at} to`),
    mint: 0n,
    value: 0n,
    gas: BigInt(gas),
    isSystemTx: false,
    data: data.toLowerCase() as Hex,
  };
}

/** Parses a NUT bundle's JSON text into its deposits. Throws DecodeError on a malformed bundle or another version. */
export function parseNutBundle(fork: NutFork, json: string): NutBundle {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (e) {
    throw new DecodeError(`NUT bundle is not valid JSON: ${(e as Error).message}`);
  }
  if (!isObject(doc)) throw new DecodeError("NUT bundle is not an object");
  const meta = field(doc, "metadata");
  const version = isObject(meta) ? field(meta, "version") : undefined;
  if (version !== NUT_BUNDLE_VERSION)
    throw new DecodeError(
      `unsupported NUT bundle version: got ${JSON.stringify(version)}, want "${NUT_BUNDLE_VERSION}"`,
    );
  const txs = field(doc, "transactions") ?? [];
  if (!Array.isArray(txs)) throw new DecodeError("NUT bundle transactions is not a list");
  const deposits = txs.map((t, i) => nutTx(t, NUT_LABEL[fork], i));
  return {
    fork,
    deposits,
    encoded: deposits.map(encodeDepositTx),
    gas: deposits.reduce((sum, d) => sum + d.gas, 0n),
  };
}
