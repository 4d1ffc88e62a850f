/**
 * discv5 on 127.0.0.1 (real UDP + real libp2p TCP): three hosts of chain 901 where B is the bootnode and A and C
 * learn each other through it and connect over libp2p, a chain-902 host that no 901 host ever dials, the local
 * ENR's `opstack` entry against the reference vectors, `p2p.no-discovery`, and the records after a restart.
 */
import { ENR } from "@chainsafe/enr";
import { privateKeyFromRaw } from "@libp2p/crypto/keys";
import { peerIdFromPrivateKey } from "@libp2p/peer-id";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Registry } from "prom-client";
import { afterAll, describe, expect, it, vi } from "vitest";
import { chainMethodTable } from "../../../src/app/chain-factory.js";
import { ChainP2PControl } from "../../../src/p2p/control.js";
import type { ChainP2P } from "../../../src/p2p/host.js";
import { createP2PMetrics } from "../../../src/p2p/metrics.js";
import { dispatchBody } from "../../../src/rpc/dispatch.js";
import { createMethodTable } from "../../../src/rpc/method-table.js";
import { createStackP2PMethods } from "../../../src/rpc/namespaces/stackp2p.js";
import { P2PRig } from "./rig.js";

const rig = new P2PRig();
afterAll(() => rig.closeAll());

const FAST = { lookupFastMs: 150, lookupSlowMs: 150, connectFastMs: 150, connectSlowMs: 150, kickoffMs: 50 };
const WAIT = { timeout: 30_000, interval: 50 };
const signer = () => undefined;

const connected = (a: ChainP2P, b: ChainP2P): boolean =>
  a.host.getConnections().some((c) => c.remotePeer.toString() === b.peerId);

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

/**
 * The node id of a record. Tables and peer records are compared by node id: a host may re-sign its record (a higher
 * sequence number) while the test runs, and a peer learns the new text only on its next contact.
 */
const idOf = (text: string | undefined): string =>
  text === undefined || text === "" ? "" : ENR.decodeTxt(text).nodeId;
const ids = (texts: readonly string[] | undefined): string[] => (texts ?? []).map(idOf);

/** The raw RLP bytes of the record (`enr:` + base64url). */
function rawRecord(text: string): string {
  return hex(Buffer.from(text.slice(4), "base64url"));
}

async function rpc(p: ChainP2P, method: string) {
  const table = chainMethodTable(createMethodTable({}), createStackP2PMethods(new ChainP2PControl(p)), false);
  return (await dispatchBody(
    table,
    { jsonrpc: "2.0", id: 1, method, params: [] },
    { enableAdmin: false, maxBatchSize: 10, ctx: { chainId: 901n } },
  )) as { result?: unknown; error?: { code: number; message: string } };
}

describe("discv5 discovery", () => {
  it("A and C find each other through bootnode B and connect; the 902 host is filtered out; records survive a restart", async () => {
    const registry = new Registry();
    const b = await rig.host(901n, { signer, noDiscovery: false, bootnodes: [], discoveryTiming: FAST });
    const bootnode = b.p2p.discovery?.enrText() as string;
    expect(bootnode).toMatch(/^enr:/);
    const aDir = await rig.dir();
    const a = await rig.host(901n, {
      signer,
      dir: aDir,
      noDiscovery: false,
      bootnodes: [bootnode],
      discoveryTiming: FAST,
      metrics: createP2PMetrics(registry, 901n),
      peerstorePath: join(aDir, "peerstore.json"),
      discoveryPath: join(aDir, "discovery.json"),
    });
    const c = await rig.host(901n, { signer, noDiscovery: false, bootnodes: [bootnode], discoveryTiming: FAST });
    const d = await rig.host(902n, { signer, noDiscovery: false, bootnodes: [bootnode], discoveryTiming: FAST });
    const dEnr = d.p2p.discovery?.enrText() as string;
    // E (901) is blocked by A before it exists (its key is made first): A must never dial it nor accept it.
    const eDir = await rig.dir();
    const eKey = "42".repeat(32);
    await writeFile(join(eDir, "p2p_priv.txt"), eKey, { mode: 0o600 });
    const eId = peerIdFromPrivateKey(privateKeyFromRaw(Buffer.from(eKey, "hex"))).toString();
    await a.p2p.gater.blockPeer(eId);
    const e = await rig.host(901n, {
      signer,
      dir: eDir,
      noDiscovery: false,
      bootnodes: [bootnode],
      discoveryTiming: FAST,
    });
    expect(e.p2p.peerId).toBe(eId);

    // A and C were never told about each other: only B's record was given to them.
    await vi.waitFor(() => expect(connected(a.p2p, c.p2p) || connected(c.p2p, a.p2p)).toBe(true), WAIT);
    // A's table eventually holds the 902 record too (discv5 tables are not filtered, dialling is).
    await vi.waitFor(() => expect(ids(a.p2p.discovery?.table())).toContain(idOf(dEnr)), WAIT);
    // E finds C and A like anyone else; A knows E's record, yet the gater keeps them apart both ways.
    await vi.waitFor(() => expect(connected(e.p2p, c.p2p) || connected(c.p2p, e.p2p)).toBe(true), WAIT);
    await vi.waitFor(() => expect(a.p2p.discovery?.peer(eId)).toBeDefined(), WAIT);
    // (E's own side may briefly hold its outbound connection until A's gater refuses it after the handshake.)
    expect(connected(a.p2p, e.p2p)).toBe(false);
    // The record is remembered at once, the peer-store write completes later (discovery does not await it).
    await vi.waitFor(async () => expect(await a.p2p.host.peerStore.has(e.p2p.host.peerId)).toBe(true), WAIT);

    // A's table may still be growing (A may have met C over libp2p before its own lookups met C's record): wait for
    // C's record, and compare the RPC's view with the table read right after it.
    await vi.waitFor(() => expect(ids(a.p2p.discovery?.table())).toContain(idOf(c.p2p.discovery?.enrText())), WAIT);
    const tableA = (await rpc(a.p2p, "stackp2p_discoveryTable")).result as string[];
    expect(tableA.every((e) => e.startsWith("enr:"))).toBe(true);
    expect(ids(tableA)).toContain(idOf(bootnode));
    // C's peer information carries the record discovery saw and its chain (the connection may come from C's side
    // before A's own lookup has met C's record).
    await vi.waitFor(async () => {
      const infoC = (await new ChainP2PControl(a.p2p).peers(false)).peers[c.p2p.peerId];
      expect(idOf(infoC?.ENR)).toBe(idOf(c.p2p.discovery?.enrText()));
      expect(infoC?.chainID).toBe(901);
    }, WAIT);
    // The table can still change between the call and a later read (a record re-signed, a node met): compare the two
    // until they are read without a change in between.
    await vi.waitFor(async () => {
      const stats = (await rpc(a.p2p, "stackp2p_peerStats")).result as { table: number };
      expect(stats.table).toBe(a.p2p.discovery?.table().length);
    }, WAIT);
    const metric = (await registry.getSingleMetric("supernode_p2p_discovery_table_size")?.get())?.values[0];
    expect(metric?.labels).toEqual({ chain_id: "901" });
    expect(metric?.value).toBeGreaterThanOrEqual(2);

    // The 902 host: in A's table, but never in a 901 peer store, never connected to anyone.
    for (const h of [a, b, c]) {
      expect(connected(h.p2p, d.p2p)).toBe(false);
      expect(await h.p2p.host.peerStore.has(d.p2p.host.peerId)).toBe(false);
    }
    expect(d.p2p.host.getConnections()).toHaveLength(0);
    // Ordinary discovery traffic between hosts on one address stays under the inbound rate limit.
    for (const h of [a, b, c, d, e]) expect(h.p2p.discovery?.limiter?.dropped).toBe(0);

    // Restart A with B gone and no bootnodes: the stored table and peer store bring C back (C's record is in A's
    // table: awaited above).
    const seqBefore = a.p2p.discovery?.enr.seq as bigint;
    await rig.stop(e.p2p);
    await rig.stop(a.p2p);
    await rig.stop(b.p2p);
    const stored = JSON.parse(await readFile(join(aDir, "discovery.json"), "utf8")) as { nodes: string[] };
    expect(ids(stored.nodes)).toContain(idOf(c.p2p.discovery?.enrText()));
    const a2 = await rig.host(901n, {
      signer,
      dir: aDir,
      noDiscovery: false,
      bootnodes: [],
      discoveryTiming: FAST,
      peerstorePath: join(aDir, "peerstore.json"),
      discoveryPath: join(aDir, "discovery.json"),
    });
    expect(a2.p2p.peerId).toBe(a.p2p.peerId);
    expect(ids(a2.p2p.discovery?.table())).toContain(idOf(c.p2p.discovery?.enrText()));
    expect(await a2.p2p.host.peerStore.has(c.p2p.host.peerId)).toBe(true);
    expect(idOf(a2.p2p.discovery?.peer(c.p2p.peerId)?.enr)).toBe(idOf(c.p2p.discovery?.enrText()));
    // New ports, so a new record with a higher sequence number.
    expect((a2.p2p.discovery?.enr.seq as bigint) > seqBefore).toBe(true);
    await vi.waitFor(() => expect(connected(a2.p2p, c.p2p) || connected(c.p2p, a2.p2p)).toBe(true), WAIT);
  }, 90_000);

  it("the local ENR: opstack entry byte-equal to the reference vectors, our key, IP, TCP and the bound UDP port", async () => {
    const vectors: [bigint, string][] = [
      [901n, "83850700"],
      [11155420n, "85dcefa80500"],
    ];
    for (const [chainId, rlp] of vectors) {
      const h = await rig.host(chainId, { signer, noDiscovery: false, bootnodes: [], discoveryTiming: FAST });
      const text = h.p2p.discovery?.enrText() as string;
      // "opstack" as an RLP string (0x87 + 7 bytes), then the entry exactly as op-node writes it.
      expect(rawRecord(text)).toContain(`876f70737461636b${rlp}`);
      const enr = ENR.decodeTxt(text); // verifies the signature
      expect(enr.peerId.toString()).toBe(h.p2p.peerId);
      expect(enr.ip).toBe("127.0.0.1");
      const tcp = Number(/\/tcp\/(\d+)/.exec(h.p2p.addrs()[0] as string)?.[1]);
      expect(enr.tcp).toBe(tcp);
      expect(enr.udp).toBeGreaterThan(0);
      const self = (await rpc(h.p2p, "stackp2p_self")).result as { ENR: string };
      expect(self.ENR).toBe(text);
      await rig.stop(h.p2p);
    }
  });

  it("p2p.advertise.*: the ENR carries the advertised IP (a host name is resolved), TCP and UDP ports", async () => {
    const h = await rig.host(901n, {
      signer,
      noDiscovery: false,
      bootnodes: [],
      discoveryTiming: FAST,
      advertiseIp: "localhost",
      advertiseTcp: 40001,
      advertiseUdp: 40002,
    });
    const enr = ENR.decodeTxt(h.p2p.discovery?.enrText() as string);
    expect([enr.ip, enr.tcp, enr.udp]).toEqual(["127.0.0.1", 40001, 40002]);
    await rig.stop(h.p2p);
  });

  it("p2p.no-discovery: no discv5, discoveryTable answers -32000 and the ENR is empty", async () => {
    const h = await rig.host(901n, { signer, noDiscovery: true });
    expect(h.p2p.discovery).toBeUndefined();
    expect((await rpc(h.p2p, "stackp2p_discoveryTable")).error).toEqual({
      code: -32000,
      message: "discovery disabled",
    });
    expect(((await rpc(h.p2p, "stackp2p_self")).result as { ENR: string }).ENR).toBe("");
    expect(((await rpc(h.p2p, "stackp2p_peerStats")).result as { table: number }).table).toBe(0);
  });
});
