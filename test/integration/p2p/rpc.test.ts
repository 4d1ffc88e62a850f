import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../../src/core/time/clock.js";
import { GaterState } from "../../../src/p2p/gater.js";
import { chainMethodTable } from "../../../src/app/chain-factory.js";
import { ChainP2PControl } from "../../../src/p2p/control.js";
import { addressOfSecretKey, parseSecretKeyHex } from "../../../src/protocol/p2p/signing.js";
import { dispatchBody } from "../../../src/rpc/dispatch.js";
import { createMethodTable, type MethodTable } from "../../../src/rpc/method-table.js";
import { createStackP2PMethods } from "../../../src/rpc/namespaces/stackp2p.js";
import { P2PRig } from "./rig.js";

const seqAddr = addressOfSecretKey(parseSecretKeyHex(`0x${"11".repeat(32)}`));
const rig = new P2PRig();
// vi.waitFor's own default (1 s) is too short for a gossipsub subscription on a loaded machine.
const WAIT = { timeout: 30_000, interval: 25 };
afterAll(() => rig.closeAll());

const METHODS = [
  "self",
  "peers",
  "peerStats",
  "discoveryTable",
  "blockPeer",
  "unblockPeer",
  "listBlockedPeers",
  "blockAddr",
  "unblockAddr",
  "listBlockedAddrs",
  "blockSubnet",
  "unblockSubnet",
  "listBlockedSubnets",
  "protectPeer",
  "unprotectPeer",
  "connectPeer",
  "disconnectPeer",
].map((m) => `stackp2p_${m}`);

async function call(table: MethodTable, method: string, params: unknown[] = []) {
  const res = (await dispatchBody(
    table,
    { jsonrpc: "2.0", id: 1, method, params },
    { enableAdmin: false, maxBatchSize: 10, ctx: { chainId: 901n } },
  )) as { result?: unknown; error?: { code: number; message: string } };
  return res;
}

async function ok<T = unknown>(table: MethodTable, method: string, params: unknown[] = []): Promise<T> {
  const r = await call(table, method, params);
  if (r.error !== undefined) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  return r.result as T;
}

describe("stackp2p_* over real hosts", () => {
  it("answers -32601 for all 17 methods when the chain has no P2P host (--disable-p2p)", async () => {
    const table = chainMethodTable(createMethodTable({}), undefined, false);
    for (const m of METHODS) expect((await call(table, m)).error?.code, m).toBe(-32601);
    for (const m of METHODS) expect((await call(table, m.replace("stackp2p_", "opp2p_"))).error?.code, m).toBe(-32601);
  });

  it("self / peers / peerStats shapes and the block, protect, connect state table", async () => {
    const a = await rig.host(901n, { signer: () => seqAddr });
    const b = await rig.host(901n, { signer: () => seqAddr });
    const t = chainMethodTable(createMethodTable({}), createStackP2PMethods(new ChainP2PControl(a.p2p)), false);
    expect([...t.keys()].filter((k) => k.startsWith("stackp2p_")).sort()).toEqual([...METHODS].sort());
    // The upstream names (op-node's `opp2p_*`) answer the same, on the same table.
    const upstream = METHODS.map((m) => m.replace("stackp2p_", "opp2p_"));
    expect([...t.keys()].filter((k) => k.startsWith("opp2p_")).sort()).toEqual(upstream.sort());
    expect(await ok(t, "opp2p_self")).toEqual(await ok(t, "stackp2p_self"));

    const self = await ok<Record<string, unknown>>(t, "stackp2p_self");
    expect(Object.keys(self)).toEqual([
      "peerID",
      "nodeID",
      "userAgent",
      "protocolVersion",
      "ENR",
      "addresses",
      "protocols",
      "connectedness",
      "direction",
      "protected",
      "chainID",
      "latency",
      "gossipBlocks",
      "scores",
    ]);
    expect(self.peerID).toBe(a.p2p.peerId);
    expect(self.nodeID).toMatch(/^[0-9a-f]{64}$/);

    // connect → connected
    const bAddr = b.p2p.addrs()[0] as string;
    expect(await ok(t, "stackp2p_connectPeer", [bAddr])).toBeNull();
    await vi.waitFor(async () => {
      const dump = await ok<{ totalConnected: number; peers: Record<string, { connectedness: number }> }>(
        t,
        "stackp2p_peers",
        [true],
      );
      expect(dump.totalConnected).toBe(1);
      expect(dump.peers[b.p2p.peerId]?.connectedness).toBe(1);
    }, WAIT);
    const dump = await ok<Record<string, unknown>>(t, "stackp2p_peers", [true]);
    expect(Object.keys(dump)).toEqual(["totalConnected", "peers", "bannedPeers", "bannedIPS", "bannedSubnets"]);
    const peer = (dump.peers as Record<string, Record<string, unknown>>)[b.p2p.peerId];
    expect(peer?.direction).toBe(2);
    expect(Object.keys((peer?.scores as object) ?? {})).toEqual(["gossip", "reqResp"]);
    await vi.waitFor(async () => {
      const stats = await ok<Record<string, number>>(t, "stackp2p_peerStats");
      expect(stats.connected).toBe(1);
      expect(stats.blocksTopicV4).toBe(1);
    }, WAIT);
    expect(Object.keys(await ok<object>(t, "stackp2p_peerStats"))).toEqual([
      "connected",
      "table",
      "blocksTopic",
      "blocksTopicV2",
      "blocksTopicV3",
      "blocksTopicV4",
      "banned",
      "known",
    ]);

    // protect / unprotect
    await ok(t, "stackp2p_protectPeer", [b.p2p.peerId]);
    expect(
      (await ok<{ peers: Record<string, { protected: boolean }> }>(t, "stackp2p_peers", [true])).peers[b.p2p.peerId]
        ?.protected,
    ).toBe(true);
    await ok(t, "stackp2p_unprotectPeer", [b.p2p.peerId]);
    expect(
      (await ok<{ peers: Record<string, { protected: boolean }> }>(t, "stackp2p_peers", [true])).peers[b.p2p.peerId]
        ?.protected,
    ).toBe(false);

    // block lists: block does not close the connection, it is listed, unblock removes it
    await ok(t, "stackp2p_blockPeer", [b.p2p.peerId]);
    expect(await ok(t, "stackp2p_listBlockedPeers")).toEqual([b.p2p.peerId]);
    expect(
      (await ok<{ bannedPeers: string[]; totalConnected: number }>(t, "stackp2p_peers", [true])).totalConnected,
    ).toBe(1);
    await ok(t, "stackp2p_unblockPeer", [b.p2p.peerId]);
    expect(await ok(t, "stackp2p_listBlockedPeers")).toEqual([]);
    await ok(t, "stackp2p_blockAddr", ["10.1.2.3"]);
    expect(await ok(t, "stackp2p_listBlockedAddrs")).toEqual(["10.1.2.3"]);
    await ok(t, "stackp2p_unblockAddr", ["10.1.2.3"]);
    expect(await ok(t, "stackp2p_listBlockedAddrs")).toEqual([]);
    await ok(t, "stackp2p_blockSubnet", [{ IP: "10.0.0.0", Mask: "/wAAAA==" }]);
    await ok(t, "stackp2p_blockSubnet", ["192.168.0.0/16"]);
    expect(await ok(t, "stackp2p_listBlockedSubnets")).toEqual([
      { IP: "10.0.0.0", Mask: "/wAAAA==" },
      { IP: "192.168.0.0", Mask: "//8AAA==" },
    ]);
    await ok(t, "stackp2p_unblockSubnet", ["10.0.0.0/8"]);
    await ok(t, "stackp2p_unblockSubnet", [{ IP: "192.168.0.0", Mask: "//8AAA==" }]);
    expect(await ok(t, "stackp2p_listBlockedSubnets")).toEqual([]);
    expect((await call(t, "stackp2p_blockAddr", [""])).error).toEqual({ code: -32000, message: "invalid request" });
    expect((await call(t, "stackp2p_blockPeer", ["nope"])).error?.code).toBe(-32602);
    expect((await call(t, "stackp2p_discoveryTable")).error).toEqual({ code: -32000, message: "discovery disabled" });

    // a blocked peer cannot connect; unblocked it can
    await ok(t, "stackp2p_disconnectPeer", [b.p2p.peerId]);
    await vi.waitFor(
      async () => expect((await ok<{ totalConnected: number }>(t, "stackp2p_peers", [true])).totalConnected).toBe(0),
      WAIT,
    );
    await ok(t, "stackp2p_blockPeer", [b.p2p.peerId]);
    expect((await call(t, "stackp2p_connectPeer", [bAddr])).error?.code).toBe(-32000);
    await ok(t, "stackp2p_unblockPeer", [b.p2p.peerId]);
    expect(await ok(t, "stackp2p_connectPeer", [bAddr])).toBeNull();
    expect((await call(t, "stackp2p_connectPeer", ["/ip4/127.0.0.1/tcp/1"])).error?.message).toMatch(
      /bad peer address/,
    );
  });

  it("block lists survive a restart of the host", async () => {
    const dir = await rig.dir();
    const a = await rig.host(901n, { dir, signer: () => seqAddr });
    const t1 = createStackP2PMethods(new ChainP2PControl(a.p2p));
    await ok(t1, "stackp2p_blockAddr", ["10.9.9.9"]);
    await ok(t1, "stackp2p_blockSubnet", ["10.0.0.0/8"]);
    await rig.stop(a.p2p);
    const a2 = await rig.host(901n, { dir, signer: () => seqAddr });
    const t2 = createStackP2PMethods(new ChainP2PControl(a2.p2p));
    expect(await ok(t2, "stackp2p_listBlockedAddrs")).toEqual(["10.9.9.9"]);
    expect(await ok(t2, "stackp2p_listBlockedSubnets")).toEqual([{ IP: "10.0.0.0", Mask: "/wAAAA==" }]);
  });

  it("with the key outside the data dir the P2P folder is created at start and every change is persisted", async () => {
    const keyDir = await rig.dir();
    const dataDir = await rig.dir();
    const dir = join(dataDir, "chain-901", "p2p"); // missing: only the key's folder exists
    const peerstorePath = join(dir, "peerstore.json");
    const a = await rig.host(901n, {
      dir,
      signer: () => seqAddr,
      privPath: join(keyDir, "p2p_priv.txt"),
      peerstorePath,
    });
    const t = createStackP2PMethods(new ChainP2PControl(a.p2p));
    const peer = "16Uiu2HAm7Bj6dBNTqhmB5Hsw2HDXW5KJnmFuhSgs4dgfxAH8k7jX";
    expect(await ok(t, "stackp2p_blockPeer", [peer])).toBeNull();
    expect(JSON.parse(readFileSync(join(dir, "gater.json"), "utf8")).peers).toEqual([peer]);
    await rig.stop(a.p2p);
    expect(existsSync(peerstorePath)).toBe(true);
  });
});

describe("gater writes", () => {
  it("a failed write rejects, leaves the state unchanged, and does not stick once the folder is back", async () => {
    const base = await rig.dir();
    const dir = join(base, "gone");
    const g = await GaterState.open(join(dir, "gater.json"), systemClock);
    await expect(g.blockPeer("p1")).rejects.toMatchObject({ code: "ENOENT" });
    expect(g.blockedPeers()).toEqual([]);
    await expect(g.blockAddr("10.1.1.1")).rejects.toMatchObject({ code: "ENOENT" });
    expect(g.ipDenied("10.1.1.1")).toBe(false);
    mkdirSync(dir);
    await g.blockPeer("p1");
    expect(g.blockedPeers()).toEqual(["p1"]);
    expect(JSON.parse(readFileSync(join(dir, "gater.json"), "utf8")).peers).toEqual(["p1"]);
  });
});
