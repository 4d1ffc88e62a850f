/**
 * The rig of the P2P tests with op-node (test/reference/p2p-op-node.test.ts): one devnet L1 (anvil), op-node as the
 * chain's sequencer on its own op-geth (signing its blocks with a key set as the unsafe-block signer on L1; no
 * batcher: unsafe gossip is all that is looked at) with discv5 on loopback, and the supernode as a verifier on a
 * second op-geth that joins late with op-node's ENR as its only bootnode (no static peers). The supernode must find
 * op-node through discv5, fill the blocks it missed with `payload_by_number` from op-node and follow op-node's
 * unsafe head by gossip.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Counter, Registry } from "prom-client";
import type { Supernode } from "../../src/app/supernode.js";
import type { Address, Hash, Hex } from "../../src/core/types/primitives.js";
import { type Devnet, startDevnet } from "supernode-devnet";
import { devnetForkOffsets } from "supernode-devnet/config";
import { prepareSequencerP2P } from "supernode-devnet/cli/p2p";
import { devAccount } from "supernode-devnet/l1/dev-accounts";
import { freePort, jsonRpc, type OpGeth, until } from "./reference.js";
import {
  OP_NODE_SEQUENCER_ARGS,
  type OpNode,
  startOpGethPair,
  startOpNode,
  startSupernodeOn,
} from "./reference-op-node.js";

const CHAIN = 901n;
/** The dev account that sends the large transactions, and where they go. */
const BIG_SENDER = 9;
const RECIPIENT: Address = "0x00000000000000000000000000000000000b1c05";
/**
 * Random (incompressible) calldata per large transaction: eight of them make a block past one 64 KiB snappy chunk
 * even when they land in two blocks.
 */
export const BIG_TX_BYTES = 24 * 1024;
export const BIG_TXS = 8;

type Ref = { hash: Hash; number: number };
type SyncStatus = { unsafe_l2: Ref; safe_l2: Ref };

export interface OpNodeSequencerRig {
  readonly dir: string;
  readonly devnet: Devnet;
  readonly opNode: OpNode;
  /** op-node's op-geth and the supernode's. */
  readonly theirEl: OpGeth;
  readonly ourEl: OpGeth;
  /** op-node's `opp2p_self` (ENR, peer ID). */
  readonly opNodeSelf: { readonly peerID: string; readonly ENR: string };
  readonly supernode: Supernode;
  /** The supernode's chain route. */
  readonly ourRpc: string;
  /** op-node's unsafe head when the supernode started (the blocks it had missed). */
  readonly missed: number;
  /** The blocks among the missed ones that hold large transactions (more than 64 KiB together). */
  readonly bigBlocks: readonly number[];
  /** When the supernode was started (ms, wall clock). */
  readonly supernodeStartedMs: number;
  stop(): Promise<void>;
}

/**
 * Ecotone → Jovian activate one after the other after the supernode joined (Canyon and Delta at genesis), so that
 * op-node's blocks travel on all of the v2, v3 and v4 gossip topics and in each payload encoding.
 */
export const P2P_FORK_OFFSETS = devnetForkOffsets({
  ecotone: 24,
  fjord: 26,
  granite: 28,
  holocene: 30,
  isthmus: 32,
  jovian: 34,
});

/**
 * Starts the rig: op-node sequences until its unsafe head is at `missed`, then the supernode starts with op-node's
 * ENR as bootnode, `syncmode.req-resp` on and no static peers.
 */
export async function startOpNodeSequencerRig(atLeast: number): Promise<OpNodeSequencerRig> {
  let missed = atLeast;
  const dir = mkdtempSync(join(tmpdir(), "sn-ref-p2p-"));
  const stops: Array<() => Promise<void>> = [];
  const stop = async (): Promise<void> => {
    for (const s of stops.reverse()) await s().catch(() => {});
    stops.length = 0;
    if (process.env.REFERENCE_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
  };
  try {
    const devnet = await startDevnet({
      dir,
      chains: [{ chainId: CHAIN, variant: "b", forkOffsets: P2P_FORK_OFFSETS }],
      l1BlockTimeSec: 1,
      l2BlockTimeSec: 1,
    });
    stops.push(() => devnet.stop());
    const { ours: ourEl, theirs: theirEl, rollupPath, jwtPath } = await startOpGethPair(devnet, CHAIN, dir, stops);
    // The sequencing key's address becomes the unsafe-block signer on L1 before either node reads it.
    const key = (await prepareSequencerP2P(devnet)).env.SUPERNODE_VN_ALL_P2P_SEQUENCER_KEY as string;
    const files = { jwtPath, rollupPath };
    const opNode = await startOpNodeSequencer(devnet, dir, theirEl, files, key);
    stops.push(() => opNode.stop());
    const opNodeSelf = await jsonRpc<{ peerID: string; ENR: string }>(opNode.url, "opp2p_self");
    await until(
      "op-node's first block",
      async () => ((await syncStatus(opNode.url)).unsafe_l2.number > 0 ? true : undefined),
      60_000,
    );
    const bigBlocks = await sendBigTransactions(theirEl.httpUrl);
    missed = Math.max(missed, ...bigBlocks);
    await until(
      `op-node's unsafe head at ${missed}`,
      async () => ((await syncStatus(opNode.url)).unsafe_l2.number >= missed ? true : undefined),
      missed * 4_000 + 60_000,
    );
    const atStart = (await syncStatus(opNode.url)).unsafe_l2.number;
    const supernodeStartedMs = Date.now();
    const supernode = await startVerifier(devnet, dir, ourEl, jwtPath, rollupPath, opNodeSelf.ENR);
    stops.push(() => supernode.stop());
    return {
      dir,
      devnet,
      opNode,
      theirEl,
      ourEl,
      opNodeSelf,
      supernode,
      ourRpc: `${supernode.rpc.url}/${CHAIN}/`,
      missed: atStart,
      bigBlocks,
      supernodeStartedMs,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Sends BIG_TXS transactions of BIG_TX_BYTES random calldata each to `elUrl` and waits for their receipts; the
 * numbers of the blocks that hold them.
 */
export async function sendBigTransactions(elUrl: string): Promise<number[]> {
  const sender = devAccount(BIG_SENDER);
  const nonce = Number(await jsonRpc<Hex>(elUrl, "eth_getTransactionCount", [sender.address, "pending"]));
  const gasPrice = BigInt(await jsonRpc<Hex>(elUrl, "eth_gasPrice")) * 2n;
  const hashes: Hash[] = [];
  for (let i = 0; i < BIG_TXS; i++) {
    const data = `0x${randomBytes(BIG_TX_BYTES).toString("hex")}` as Hex;
    const tx = { type: "legacy", chainId: Number(CHAIN), nonce: nonce + i, to: RECIPIENT, gas: 1_500_000n, gasPrice };
    const raw = await sender.account.signTransaction({ ...tx, type: "legacy", data });
    hashes.push(await jsonRpc<Hash>(elUrl, "eth_sendRawTransaction", [raw]));
  }
  const blocks = new Set<number>();
  for (const h of hashes) {
    const receipt = await until(
      `the receipt of ${h}`,
      async () => (await jsonRpc<{ blockNumber: Hex } | null>(elUrl, "eth_getTransactionReceipt", [h])) ?? undefined,
      60_000,
    );
    blocks.add(Number(receipt.blockNumber));
  }
  return [...blocks];
}

/** The largest RLP size among `blocks` on `elUrl`. */
export async function largestBlockBytes(elUrl: string, blocks: readonly number[]): Promise<number> {
  let max = 0;
  for (const n of blocks) {
    const b = await jsonRpc<{ size: Hex }>(elUrl, "eth_getBlockByNumber", [`0x${n.toString(16)}`, false]);
    max = Math.max(max, Number(b.size));
  }
  return max;
}

export const syncStatus = (url: string): Promise<SyncStatus> => jsonRpc<SyncStatus>(url, "optimism_syncStatus");

/** The sum of a counter's series of chain 901 that match `labels`. */
export async function counterSum(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name) as Counter | undefined;
  if (metric === undefined) return 0;
  const { values } = await metric.get();
  const want = { chain_id: CHAIN.toString(10), ...labels };
  return values
    .filter((v) => Object.entries(want).every(([k, x]) => String(v.labels[k]) === x))
    .reduce((s, v) => s + v.value, 0);
}

/** The `payload_by_number` requests op-node's debug log notes as served. */
export const servedByOpNode = (opNode: OpNode): number =>
  readFileSync(opNode.logPath, "utf8").match(/successfully served sync response/g)?.length ?? 0;

/** Blocks 1…`upTo` whose hashes differ between the two execution clients, the first three named. */
export async function compareBlocks(ourEl: string, theirEl: string, upTo: number): Promise<string[]> {
  const out: string[] = [];
  for (let n = 1; n <= upTo; n++) {
    const q = `0x${n.toString(16)}`;
    const a = await jsonRpc<Ref | null>(ourEl, "eth_getBlockByNumber", [q, false]);
    const b = await jsonRpc<Ref | null>(theirEl, "eth_getBlockByNumber", [q, false]);
    if (a?.hash !== b?.hash) out.push(`block ${n}: supernode ${a?.hash ?? "none"}, op-node ${b?.hash ?? "none"}`);
  }
  return out;
}

/**
 * op-node as the sequencer (L1 confirmations 0, debug log: it notes each served request), signing with `key`, P2P
 * on loopback with discv5 (UDP) so that its ENR can serve as a bootnode, and req-resp serving on (its default).
 */
async function startOpNodeSequencer(
  devnet: Devnet,
  dir: string,
  el: OpGeth,
  files: { readonly jwtPath: string; readonly rollupPath: string },
  key: string,
): Promise<OpNode> {
  const p2pPort = await freePort();
  return startOpNode(devnet, dir, el, { ...files, logLevel: "debug" }, [
    ...OP_NODE_SEQUENCER_ARGS,
    ...["--p2p.sequencer.key", key],
    ...["--p2p.listen.ip", "127.0.0.1", "--p2p.listen.tcp", String(p2pPort), "--p2p.listen.udp", String(p2pPort)],
    ...["--p2p.advertise.ip", "127.0.0.1", "--p2p.priv.path", join(dir, "op-node-p2p-key.txt")],
    ...["--p2p.peerstore.path", "memory", "--p2p.discovery.path", "memory"],
    // Without a bootnode of its own op-node resolves its built-in bootnodes' host names at start; this one (a dev
    // account's public key, nobody listens on port 1) is never answered.
    ...["--p2p.bootnodes", `enode://${devAccount(0).account.publicKey.slice(4)}@127.0.0.1:1`],
  ]);
}

/** The supernode as a verifier on `el`: P2P on loopback with discv5, `enr` its only bootnode, req-resp gap filling. */
async function startVerifier(
  devnet: Devnet,
  dir: string,
  el: OpGeth,
  jwtPath: string,
  rollupPath: string,
  enr: string,
): Promise<Supernode> {
  return startSupernodeOn(devnet, dir, CHAIN, el, { jwtPath, rollupPath, logLevel: "debug" }, [
    ...["--vn.all.p2p.listen.ip", "127.0.0.1", `--vn.${CHAIN}.p2p.bootnodes`, enr, `--vn.${CHAIN}.syncmode.req-resp`],
  ]);
}
