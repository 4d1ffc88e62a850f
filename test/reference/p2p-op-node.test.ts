/**
 * P2P with op-node on loopback, op-node sequencing (test/support/reference-p2p.ts): the supernode, a verifier that
 * joins late with op-node's ENR as its only bootnode, finds op-node through discv5, fetches the blocks it missed
 * with `payload_by_number` from op-node, and follows op-node's unsafe head by gossip; every block has op-node's
 * hash on the supernode's op-geth. The opposite direction (our blocks to op-node) is the oracle's gossip case.
 *
 * A second (in-process) host that knows only op-node's ENR finds the supernode through op-node's discv5 table (op-node's
 * NODES answers carry the supernode's record).
 *
 * Blocks followed: REFERENCE_BLOCKS (default 20; `npm run reference` asks for 200, capped here at 60). Figures:
 * discv5_found_opnode, discv5_found_via_opnode, reqresp_blocks_from_opnode, gossip_from_opnode.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { P2PRig } from "../integration/p2p/rig.js";
import { jsonRpc, printReferenceFigure, referenceSkipReason, until } from "../support/reference.js";
import {
  compareBlocks,
  counterSum,
  largestBlockBytes,
  type OpNodeSequencerRig,
  P2P_FORK_OFFSETS,
  sendBigTransactions,
  servedByOpNode,
  startOpNodeSequencerRig,
  syncStatus,
} from "../support/reference-p2p.js";

const BLOCKS = Math.min(Number(process.env.REFERENCE_BLOCKS ?? 20), 60);
/** Blocks op-node sequences before the supernode starts: the gap req-resp fills. */
const MISSED = 6;
const skip = referenceSkipReason("P2P with op-node", ["geth", "op-node"]);

let rig: OpNodeSequencerRig | undefined;
const hosts = new P2PRig();
const r = (): OpNodeSequencerRig => rig as OpNodeSequencerRig;
const peersOf = async (url: string, method: string) =>
  Object.keys((await jsonRpc<{ peers: Record<string, unknown> }>(url, method, [true])).peers);
const registry = () => r().supernode.metrics.registry;
const GOSSIP = "supernode_p2p_gossip_messages_total";
const REQ_RESP = "supernode_p2p_reqresp_requests_total";

describe.skipIf(skip !== undefined)("P2P with op-node as the sequencer", () => {
  beforeAll(async () => {
    rig = await startOpNodeSequencerRig(MISSED);
  }, 180_000);
  afterAll(async () => {
    await hosts.closeAll();
    await rig?.stop();
  }, 60_000);

  it("discv5 through op-node's ENR: the supernode (no static peers) finds and connects to op-node", async () => {
    const them = r().opNodeSelf.peerID;
    await until(
      "the supernode connected to op-node",
      async () => ((await peersOf(r().ourRpc, "stackp2p_peers")).includes(them) ? true : undefined),
      60_000,
    );
    printReferenceFigure("discv5_found_opnode", Date.now() - r().supernodeStartedMs, "ms");
    const us = (await jsonRpc<{ peerID: string }>(r().ourRpc, "opp2p_self")).peerID;
    await until(
      "op-node's opp2p_peers listing the supernode",
      async () => ((await peersOf(r().opNode.url, "opp2p_peers")).includes(us) ? true : undefined),
      30_000,
    );
  }, 120_000);

  it("discv5 through op-node's table: a second host that knows only op-node's ENR finds the supernode", async () => {
    // An in-process host of chain 901 (lookups every 150 ms); neither side knows the other's record, so it can only
    // come from op-node's NODES answers.
    const fast = { lookupFastMs: 150, lookupSlowMs: 150, connectFastMs: 150, connectSlowMs: 150, kickoffMs: 50 };
    const t0 = Date.now();
    const other = await hosts.host(901n, {
      signer: () => undefined,
      noDiscovery: false,
      bootnodes: [r().opNodeSelf.ENR],
      discoveryTiming: fast,
    });
    await until(
      "the supernode and the second host connected",
      async () => ((await peersOf(r().ourRpc, "stackp2p_peers")).includes(other.p2p.peerId) ? true : undefined),
      60_000,
    );
    printReferenceFigure("discv5_found_via_opnode", Date.now() - t0, "ms");
    // Gone before the gossip test: op-node's blocks reach the supernode from op-node only.
    await hosts.stop(other.p2p);
  }, 90_000);

  it(`req-resp: the ${MISSED}+ blocks the supernode missed come from op-node by payload_by_number`, async () => {
    const missed = r().missed;
    await until(
      `the supernode's unsafe head past ${missed}`,
      async () => ((await syncStatus(r().ourRpc)).unsafe_l2.number > missed ? true : undefined),
      90_000,
    );
    const fetched = await counterSum(registry(), REQ_RESP, {
      role: "client",
      result: "0",
    });
    const served = servedByOpNode(r().opNode);
    const largest = await largestBlockBytes(r().ourEl.httpUrl, r().bigBlocks);
    printReferenceFigure("reqresp_blocks_from_opnode", fetched, "blocks", {
      missed,
      served_by_opnode: served,
      largest_block_bytes: largest,
    });
    // A payload of more than one 64 KiB snappy frame came through req-resp.
    expect(largest).toBeGreaterThan(65_536);
    expect(fetched).toBeGreaterThanOrEqual(missed);
    expect(served, "op-node's log: requests served").toBeGreaterThanOrEqual(fetched);
    expect(await compareBlocks(r().ourEl.httpUrl, r().theirEl.httpUrl, missed)).toEqual([]);
  }, 120_000);

  it(`gossip: the supernode's unsafe head follows op-node's for ${BLOCKS} blocks with op-node's hashes`, async () => {
    // Every block op-node builds from now on must come by gossip (the supernode may still be inserting the gap).
    const from = (await syncStatus(r().opNode.url)).unsafe_l2.number;
    const fetchedBefore = await counterSum(registry(), REQ_RESP, { role: "client" });
    const acceptedBefore = await counterSum(registry(), GOSSIP, { result: "accept" });
    const bigBlocks = await sendBigTransactions(r().theirEl.httpUrl);
    // Past Jovian (+34 s) at least.
    const target = Math.max(from + BLOCKS, (P2P_FORK_OFFSETS.jovian ?? 0) + 2, ...bigBlocks);
    await until(
      `the supernode's unsafe head at ${target}`,
      async () => ((await syncStatus(r().ourRpc)).unsafe_l2.number >= target ? true : undefined),
      BLOCKS * 3_000 + 60_000,
    );
    const ours = (await syncStatus(r().ourRpc)).unsafe_l2;
    const theirs = (await syncStatus(r().opNode.url)).unsafe_l2;
    const byTopic: Record<string, number> = {};
    for (const topic of ["v1", "v2", "v3", "v4"])
      byTopic[topic] = await counterSum(registry(), GOSSIP, { result: "accept", topic });
    const accepted = Object.values(byTopic).reduce((a, b) => a + b, 0);
    const lag = theirs.number - ours.number;
    const largest = await largestBlockBytes(r().ourEl.httpUrl, bigBlocks);
    const during = accepted - acceptedBefore;
    printReferenceFigure("gossip_from_opnode", accepted, "blocks", {
      phase_blocks: target - from,
      phase_accepted: during,
      unsafe_lag_blocks: lag,
      by_topic: byTopic,
      largest_block_bytes: largest,
    });
    expect(largest).toBeGreaterThan(65_536);
    expect(during).toBeGreaterThanOrEqual(target - from);
    // Isthmus (v4) activates before the target; Ecotone (v3) after the supernode joined, unless a loaded machine
    // made it join later (one block a second from genesis).
    if (from < (P2P_FORK_OFFSETS.ecotone ?? 0)) expect(byTopic.v3).toBeGreaterThan(0);
    expect(byTopic.v4).toBeGreaterThan(0);
    expect(await counterSum(registry(), GOSSIP, { result: "reject" })).toBe(0);
    // Every block of this phase came by gossip: no gap was filled by req-resp meanwhile.
    expect(await counterSum(registry(), REQ_RESP, { role: "client" })).toBe(fetchedBefore);
    expect(await compareBlocks(r().ourEl.httpUrl, r().theirEl.httpUrl, ours.number)).toEqual([]);
    // Both still list each other.
    expect(await peersOf(r().ourRpc, "stackp2p_peers")).toContain(r().opNodeSelf.peerID);
    const us = (await jsonRpc<{ peerID: string }>(r().ourRpc, "opp2p_self")).peerID;
    expect(await peersOf(r().opNode.url, "opp2p_peers")).toContain(us);
  }, 300_000);
});
