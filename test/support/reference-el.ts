/**
 * op-geth as the supernode's execution client (variant B), on the derivation oracle's rig
 * (test/support/reference-oracle.ts): the supernode sequences on one op-geth while a verifier supernode (its own
 * process) and op-node (verifier) derive onto two more; an L1 reorg inside finality and a restart of the
 * sequencer's supernode and op-geth on the way; the CPU and memory each verifier spends. And EL sync: a fresh
 * op-geth, peered over devp2p with the sequencer's, driven by a supernode in execution-layer sync mode.
 */
import type { Hex } from "../../src/core/types/primitives.js";
import type { Fork } from "../../src/protocol/rollup-config.js";
import { type Devnet, startDevnet } from "supernode-devnet";
import { supernodeBin } from "supernode-devnet/cli/child";
import { DEVNET_P2P_ARGS, prepareSequencerP2P } from "supernode-devnet/cli/p2p";
import { procUsage } from "./proc-usage.js";
import { freePort, jsonRpc, type OpGeth, type RefProcess, referenceLog, startReference, until } from "./reference.js";
import { type OpGethPair, startOpGethPair, startSupernodeOn, supernodeArgsOn } from "./reference-op-node.js";
import { CHAIN, type Ref, sendTraffic } from "./reference-oracle.js";

export type Status = { unsafe_l2: Ref; safe_l2: Ref; finalized_l2: Ref };
export type Traffic = { userTxs: number; deposits: number; lastMs: number };
export type Stops = Array<() => Promise<void>>;
export type RpcProcess = RefProcess & { readonly url: string };

export const statusOf = (url: string): Promise<Status> => jsonRpc<Status>(url, "optimism_syncStatus");

/** The devnet (chain 901, variant B, calldata batches, one-second blocks) and its op-geth pair. */
export interface ElRig {
  readonly devnet: Devnet;
  readonly pair: OpGethPair;
}

export async function startElRig(
  forkOffsets: Partial<Record<Fork, number | undefined>> | undefined,
  dir: string,
  stops: Stops,
  peers?: number,
): Promise<ElRig> {
  const devnet = await startDevnet({
    dir,
    chains: [{ chainId: CHAIN, variant: "b", ...(forkOffsets === undefined ? {} : { forkOffsets }) }],
    l1BlockTimeSec: 1,
    l2BlockTimeSec: 1,
    dataMode: "calldata",
  });
  stops.push(() => devnet.stop());
  return { devnet, pair: await startOpGethPair(devnet, CHAIN, dir, stops, peers) };
}

/** One supernode of a scenario: its data dir and log `<dir>/<name>`, sequencing (default) or not, P2P or not. */
export interface SupernodeRole {
  readonly name: string;
  readonly sequencer?: boolean;
  readonly p2p?: boolean;
  readonly extra?: readonly string[];
}

const roleArgs = (r: SupernodeRole): string[] => [
  ...(r.p2p === true ? DEVNET_P2P_ARGS : ["--disable-p2p"]),
  "--rpc.enable-admin",
  ...(r.sequencer === false ? [] : ["--vn.all.sequencer.enabled"]),
  ...(r.extra ?? []),
];
const runOptions = (rig: ElRig, name: string) => ({
  jwtPath: rig.pair.jwtPath,
  rollupPath: rig.pair.rollupPath,
  logLevel: "info" as const,
  name,
});

/** The supernode in this process; a sequencer with P2P gets a block-signing key (the chain's signer on L1). */
export async function startSupernodeIn(rig: ElRig, dir: string, el: OpGeth, role: SupernodeRole) {
  const env = role.p2p === true && role.sequencer !== false ? (await prepareSequencerP2P(rig.devnet)).env : {};
  return startSupernodeOn(rig.devnet, dir, CHAIN, el, runOptions(rig, role.name), roleArgs(role), env);
}

/** The supernode as a process of its own (the product's binary, so /proc measures it alone), once it answers. */
export async function startSupernodeProcess(
  rig: ElRig,
  dir: string,
  el: OpGeth,
  role: SupernodeRole,
  stops: Stops,
): Promise<RpcProcess> {
  const ports = { rpc: await freePort(), metrics: await freePort() };
  const args = supernodeArgsOn(rig.devnet, dir, CHAIN, el, runOptions(rig, role.name), roleArgs(role), ports);
  const p = startReference(process.execPath, [supernodeBin(), ...args], referenceLog(dir, role.name), true);
  stops.push(() => p.stop());
  const url = `http://127.0.0.1:${ports.rpc}/${CHAIN}/`;
  await until(`${role.name}'s RPC`, () => statusOf(url), 120_000);
  return { ...p, url };
}

/** Sends traffic (sendTraffic) to `elUrl` until `done` holds. */
export async function withTraffic(
  what: string,
  devnet: Devnet,
  elUrl: () => string,
  t: Traffic,
  done: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  await until(
    what,
    async () => {
      await sendTraffic(devnet, elUrl(), t).catch(() => {});
      return (await done()) ? true : undefined;
    },
    timeoutMs,
  );
}

/** A verifier's CPU so far and safe head: two marks give its CPU per derived block. */
export interface CostMark {
  readonly cpuMs: number;
  readonly safe: number;
}
export async function costMark(pid: number, rpcUrl: string): Promise<CostMark> {
  return { cpuMs: (procUsage(pid)?.cpuS ?? Number.NaN) * 1000, safe: (await statusOf(rpcUrl)).safe_l2.number };
}
export function cpuPerBlock(a: CostMark, b: CostMark): number {
  return (b.cpuMs - a.cpuMs) / Math.max(1, b.safe - a.safe);
}

/** The deposits (beyond each block's L1-info transaction) and user transactions in blocks 1…n of `elUrl`. */
export async function countTxs(elUrl: string, n: number): Promise<{ deposits: number; userTxs: number }> {
  let deposits = 0;
  let userTxs = 0;
  for (let i = 1; i <= n; i++) {
    const b = await jsonRpc<{ transactions: Array<{ type: Hex }> }>(elUrl, "eth_getBlockByNumber", [
      `0x${i.toString(16)}`,
      true,
    ]);
    const dep = b.transactions.filter((t) => t.type === "0x7e").length;
    deposits += Math.max(0, dep - 1);
    userTxs += b.transactions.length - dep;
  }
  return { deposits, userTxs };
}

/** The L1 reorg depth that stays inside L1 finality: at most `want`, above the finalized block. */
export async function reorgDepthInsideFinality(l1Url: string, want: number): Promise<number> {
  const head = await jsonRpc<{ number: Hex }>(l1Url, "eth_getBlockByNumber", ["latest", false]);
  const fin = await jsonRpc<{ number: Hex }>(l1Url, "eth_getBlockByNumber", ["finalized", false]);
  return Math.min(want, Number(head.number) - Number(fin.number) - 1);
}
