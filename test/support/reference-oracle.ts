/**
 * The derivation oracle's rig: one devnet L1 (anvil), two op-geth started from the devnet's L2 genesis, the
 * supernode sequencing on the first with the devnet's batcher posting its blocks to L1, and op-node (verifier,
 * consensus-layer sync) deriving them onto the second. Traffic: a deposit every few L1 blocks and user
 * transactions of the legacy, access-list and dynamic-fee types sent to the sequencer's op-geth.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Address, Hash, Hex } from "../../src/core/types/primitives.js";
import type { Devnet } from "supernode-devnet";
import type { DataMode } from "supernode-devnet/batcher/batcher";
import type { BatchType } from "supernode-devnet/batcher/channel-builder";
import { DEVNET_P2P_ARGS, loopbackAddr, prepareSequencerP2P, waitForP2PSelf } from "supernode-devnet/cli/p2p";
import { devAccount } from "supernode-devnet/l1/dev-accounts";
import type { Fork } from "../../src/protocol/rollup-config.js";
import { freePort, inReferenceRig, jsonRpc, type OpGeth, until } from "./reference.js";
import { type OpNode, startBatcher, startOpNode, startOpNodeDevnet, startSupernodeOn } from "./reference-op-node.js";

export interface OracleCase {
  readonly name: string;
  readonly dataMode: DataMode;
  readonly batchType: BatchType;
  /** Fork offsets after L2 genesis (devnetForkOffsets); default every fork through Jovian at genesis. */
  readonly forkOffsets?: Partial<Record<Fork, number | undefined>>;
  /**
   * P2P on loopback: the supernode signs and gossips the blocks it sequences, op-node has it as a static peer (no
   * discovery) and takes them as unsafe blocks before deriving them.
   */
  readonly gossip?: boolean;
}

export interface OracleResult {
  readonly blocksCompared: number;
  readonly blockMismatches: number;
  readonly outputsCompared: number;
  readonly userTxs: number;
  readonly deposits: number;
  /** With `gossip`: blocks op-node logged as received by gossip, and whether each side lists the other as a peer. */
  readonly gossip?: { readonly toOpNode: number; readonly opNodeListsUs: boolean; readonly weListOpNode: boolean };
  /** The first disagreements, each naming both sides' values. */
  readonly mismatches: string[];
}

export type Ref = { hash: Hash; number: number; transactions?: unknown[] };
type Output = { outputRoot: Hash };
export const CHAIN = 901n;
const TRAFFIC_SENDER = 8;
const RECIPIENT: Address = "0x00000000000000000000000000000000000d3b05";

/** Runs one case until op-node's and the supernode's safe heads reach `blocks`, then compares blocks 1…blocks. */
export async function runOracle(c: OracleCase, blocks: number): Promise<OracleResult> {
  return inReferenceRig(`oracle-${c.name}`, (dir, stops) => oracle(c, blocks, dir, stops));
}

async function oracle(c: OracleCase, blocks: number, dir: string, stops: Array<() => Promise<void>>) {
  const { devnet, pair } = await startOpNodeDevnet(dir, stops, { chainId: CHAIN, ...c });
  const { ours, theirs, cfg, rollupPath, jwtPath } = pair;

  const supernode = await startSupernode(devnet, dir, ours, jwtPath, rollupPath, c.gossip === true);
  stops.push(() => supernode.stop());
  startBatcher(devnet, ours, cfg, { mode: c.dataMode, batchType: c.batchType }, stops);
  const ourRpcBase = supernode.rpc.url;
  const p2p =
    c.gossip === true
      ? await opNodeP2PArgs(dir, loopbackAddr(await waitForP2PSelf(ourRpcBase, CHAIN, AbortSignal.timeout(60_000))))
      : ["--p2p.disable"];
  const logLevel = p2p.includes("--p2p.disable") ? "info" : "debug";
  const opNode = await startOpNode(devnet, dir, theirs, { jwtPath, rollupPath, logLevel }, p2p);
  stops.push(() => opNode.stop());
  const ourRpc = `${supernode.rpc.url}/${CHAIN}/`;

  const traffic = { userTxs: 0, deposits: 0, lastMs: 0 };
  const safeOf = async (url: string) => (await jsonRpc<{ safe_l2: Ref }>(url, "optimism_syncStatus")).safe_l2.number;
  await until(
    `both safe heads at ${blocks}`,
    async () => {
      await sendTraffic(devnet, ours.httpUrl, traffic).catch(() => {});
      return (await safeOf(opNode.url)) >= blocks && (await safeOf(ourRpc)) >= blocks ? true : undefined;
    },
    blocks * 4_000 + 120_000,
  );
  const compared = await compare(ours.httpUrl, theirs.httpUrl, ourRpc, opNode.url, blocks);
  const gossip = c.gossip === true ? await gossipFigures(ourRpc, opNode) : undefined;
  return {
    ...compared,
    userTxs: traffic.userTxs,
    deposits: traffic.deposits,
    ...(gossip === undefined ? {} : { gossip }),
  };
}

/** op-node's P2P flags (its log at debug level, which is where it notes each gossiped block): loopback, no discovery, the supernode's host as a static peer, state in `dir`. */
async function opNodeP2PArgs(dir: string, staticPeer: string): Promise<string[]> {
  return [
    ...["--p2p.listen.ip", "127.0.0.1", "--p2p.listen.tcp", String(await freePort()), "--p2p.listen.udp", "0"],
    ...["--p2p.no-discovery", "--p2p.static", staticPeer, "--p2p.priv.path", join(dir, "op-node-p2p-key.txt")],
    ...["--p2p.peerstore.path", "memory", "--p2p.discovery.path", "memory", "--p2p.sync.req-resp=false"],
    // Never dialled (no discovery), but without it op-node resolves its built-in bootnodes' host names at start.
    ...["--p2p.bootnodes", `enode://${devAccount(0).account.publicKey.slice(4)}@127.0.0.1:1`],
  ];
}

async function gossipFigures(ourRpc: string, opNode: OpNode) {
  const received =
    readFileSync(opNode.logPath, "utf8").match(/Received signed execution payload from p2p/g)?.length ?? 0;
  const them = await jsonRpc<{ peerID: string }>(opNode.url, "opp2p_self");
  const us = await jsonRpc<{ peerID: string }>(ourRpc, "opp2p_self");
  const theirPeers = await jsonRpc<{ peers: Record<string, unknown> }>(opNode.url, "opp2p_peers", [true]);
  const ourPeers = await jsonRpc<{ peers: Record<string, unknown> }>(ourRpc, "stackp2p_peers", [true]);
  return {
    toOpNode: received,
    opNodeListsUs: us.peerID in theirPeers.peers,
    weListOpNode: them.peerID in ourPeers.peers,
  };
}

export async function compare(ourEl: string, theirEl: string, ourRpc: string, opNode: string, blocks: number) {
  let blockMismatches = 0;
  let outputs = 0;
  const mismatches: string[] = [];
  for (let n = 1; n <= blocks; n++) {
    const q = `0x${n.toString(16)}`;
    const a = await jsonRpc<Ref>(ourEl, "eth_getBlockByNumber", [q, false]);
    const b = await jsonRpc<Ref>(theirEl, "eth_getBlockByNumber", [q, false]);
    if (a.hash !== b.hash) {
      blockMismatches++;
      if (mismatches.length < 3) mismatches.push(`block ${n}: supernode ${a.hash}, op-node ${b.hash}`);
    }
    const oa = await jsonRpc<Output>(ourRpc, "optimism_outputAtBlock", [q]);
    const ob = await jsonRpc<Output>(opNode, "optimism_outputAtBlock", [q]);
    outputs++;
    if (oa.outputRoot !== ob.outputRoot && mismatches.length < 3)
      mismatches.push(`output at ${n}: supernode ${oa.outputRoot}, op-node ${ob.outputRoot}`);
  }
  return { blocksCompared: blocks, blockMismatches, outputsCompared: outputs, mismatches };
}

async function startSupernode(
  devnet: Devnet,
  dir: string,
  el: OpGeth,
  jwtPath: string,
  rollupPath: string,
  gossip: boolean,
) {
  const seqP2P = gossip ? await prepareSequencerP2P(devnet) : undefined;
  const extra = [...(gossip ? DEVNET_P2P_ARGS : ["--disable-p2p"]), "--rpc.enable-admin", "--vn.all.sequencer.enabled"];
  return startSupernodeOn(devnet, dir, CHAIN, el, { jwtPath, rollupPath, logLevel: "info" }, extra, seqP2P?.env);
}

/**
 * One round of traffic, at most one a second: a deposit (every fourth round) and one user transaction of each type
 * (legacy, EIP-2930, EIP-1559) from the traffic account to the sequencer's op-geth.
 */
export async function sendTraffic(
  devnet: Devnet,
  elUrl: string,
  t: { userTxs: number; deposits: number; lastMs: number },
): Promise<void> {
  if (Date.now() - t.lastMs < 1_000) return;
  t.lastMs = Date.now();
  if (t.userTxs % 12 === 0) {
    await devnet.deposit(CHAIN, { fromAccount: 7, to: RECIPIENT, mint: 10n ** 15n, value: 10n ** 14n });
    t.deposits++;
  }
  const sender = devAccount(TRAFFIC_SENDER);
  const nonce = Number(await jsonRpc<Hex>(elUrl, "eth_getTransactionCount", [sender.address, "pending"]));
  const gasPrice = BigInt(await jsonRpc<Hex>(elUrl, "eth_gasPrice"));
  const common = { chainId: Number(CHAIN), to: RECIPIENT, value: 1000n, gas: 50_000n } as const;
  const raws = [
    await sender.account.signTransaction({ ...common, type: "legacy", nonce, gasPrice: gasPrice * 2n }),
    await sender.account.signTransaction({
      ...common,
      type: "eip2930",
      nonce: nonce + 1,
      gasPrice: gasPrice * 2n,
      accessList: [{ address: RECIPIENT, storageKeys: [] }],
    }),
    await sender.account.signTransaction({
      ...common,
      type: "eip1559",
      nonce: nonce + 2,
      maxFeePerGas: gasPrice * 2n + 10n ** 6n,
      maxPriorityFeePerGas: 10n ** 6n,
    }),
  ];
  for (const raw of raws) {
    await jsonRpc<Hash>(elUrl, "eth_sendRawTransaction", [raw]);
    t.userTxs++;
  }
}
