import { afterAll, describe, expect, it, vi } from "vitest";
import { ChainP2PControl } from "../../../src/p2p/control.js";
import { addressOfSecretKey, parseSecretKeyHex } from "../../../src/protocol/p2p/signing.js";
import { P2PRig, type RigHost } from "./rig.js";

/**
 * Peer management on real libp2p hosts over loopback, with op-node's intervals shortened: static peers are redialled
 * after a disconnect, trimming above the high water mark spares protected peers and peers in their grace period, the
 * score monitor bans a peer whose score falls below the threshold (static peers exempt), and peer information carries
 * the ping latency and gossipsub's scores.
 */
const seqAddr = addressOfSecretKey(parseSecretKeyHex(`0x${"11".repeat(32)}`));
const signer = () => seqAddr;
const FAST = { staticRedialMs: 150, trimIntervalMs: 150, monitorIntervalMs: 50, pingRoundMs: 60_000 };
const WAIT = { timeout: 20_000, interval: 25 };

const rig = new P2PRig();
afterAll(() => rig.closeAll());

const connectedTo = (a: RigHost, b: RigHost): boolean => a.p2p.host.getConnections(b.p2p.host.peerId).length > 0;
const addr = (h: RigHost): string => h.p2p.addrs()[0] as string;

describe("peer management (loopback)", () => {
  it("redials a static peer after it hung up", async () => {
    const b = await rig.host(901n, { signer });
    const a = await rig.host(901n, { signer, static: [addr(b)], timing: FAST });
    await vi.waitFor(() => expect(connectedTo(a, b) && connectedTo(b, a)).toBe(true), WAIT);
    expect(a.p2p.peers.isProtected(b.p2p.peerId)).toBe(true);
    const first = a.p2p.host.getConnections(b.p2p.host.peerId)[0]?.id;
    await b.p2p.host.hangUp(a.p2p.host.peerId);
    await vi.waitFor(() => {
      const conns = a.p2p.host.getConnections(b.p2p.host.peerId);
      expect(conns.length).toBe(1);
      expect(conns[0]?.id).not.toBe(first);
      expect(conns[0]?.direction).toBe("outbound");
    }, WAIT);
  });

  it("trims above the high water mark down to the low one, sparing protected peers", async () => {
    const a = await rig.host(901n, { signer, peersLo: 1, peersHi: 2, peersGraceMs: 0, timing: FAST });
    const keep = await rig.host(901n, { signer });
    const others = [await rig.host(901n, { signer }), await rig.host(901n, { signer })];
    a.p2p.peers.protect(keep.p2p.peerId);
    for (const h of [keep, ...others]) await h.p2p.connect(addr(a));
    await vi.waitFor(() => {
      expect(connectedTo(a, keep)).toBe(true);
      for (const o of others) expect(connectedTo(a, o)).toBe(false);
    }, WAIT);
  });

  it("does not trim peers inside their grace period", async () => {
    const a = await rig.host(901n, { signer, peersLo: 1, peersHi: 2, peersGraceMs: 600_000, timing: FAST });
    const peers = [
      await rig.host(901n, { signer }),
      await rig.host(901n, { signer }),
      await rig.host(901n, { signer }),
    ];
    for (const h of peers) await h.p2p.connect(addr(a));
    await vi.waitFor(() => expect(peers.every((p) => connectedTo(a, p))).toBe(true), WAIT);
    a.p2p.peers.trim(); // and the timer has run several times meanwhile
    await new Promise((r) => setTimeout(r, 4 * FAST.trimIntervalMs));
    expect(peers.every((p) => connectedTo(a, p))).toBe(true);
  });

  it("bans a peer whose score falls below the threshold and refuses it afterwards; a static peer is exempt", async () => {
    const bad = await rig.host(901n, { signer });
    const friend = await rig.host(901n, { signer });
    const a = await rig.host(901n, { signer, static: [addr(friend)], banThreshold: -100, timing: FAST });
    await bad.p2p.connect(addr(a));
    await vi.waitFor(() => expect(connectedTo(a, friend) && connectedTo(a, bad)).toBe(true), WAIT);
    // Rejected req-resp payloads weigh −20 each in the application score (capped at 20 of them).
    for (let i = 0; i < 10; i++) {
      a.p2p.peers.noteReqResp(bad.p2p.peerId, "rejected");
      a.p2p.peers.noteReqResp(friend.p2p.peerId, "rejected");
    }
    await vi.waitFor(() => expect(a.p2p.gater.peerDenied(bad.p2p.peerId)).toBe(true), WAIT);
    expect(a.p2p.peers.score(bad.p2p.peerId)).toBeLessThan(-100);
    await vi.waitFor(() => expect(connectedTo(a, bad)).toBe(false), WAIT);
    // a's gater refuses it once the handshake names it (the dialer may see its side open for a moment)
    await bad.p2p.connect(addr(a), 5_000).catch(() => undefined);
    await vi.waitFor(() => expect(connectedTo(bad, a)).toBe(false), WAIT);
    expect(connectedTo(a, bad)).toBe(false);
    // the static peer has the same score and stays
    expect(a.p2p.peers.score(friend.p2p.peerId)).toBeLessThan(-100);
    expect(a.p2p.gater.peerDenied(friend.p2p.peerId)).toBe(false);
    expect(connectedTo(a, friend)).toBe(true);
  });

  it("peer information carries the ping latency and gossipsub's score", async () => {
    const b = await rig.host(901n, { signer });
    const a = await rig.host(901n, { signer, timing: FAST });
    await b.p2p.connect(addr(a));
    const control = new ChainP2PControl(a.p2p);
    await vi.waitFor(async () => {
      const info = (await control.peers(true)).peers[b.p2p.peerId];
      expect(info?.latency).toBeGreaterThan(0);
    }, WAIT);
    a.p2p.peers.noteReqResp(b.p2p.peerId, "valid");
    a.p2p.peers.noteReqResp(b.p2p.peerId, "valid");
    await vi.waitFor(async () => {
      const info = (await control.peers(true)).peers[b.p2p.peerId];
      // the application score (0.5 per valid response) is the only non-zero component here
      expect(info?.scores.gossip.total).toBe(1);
      expect(info?.scores.reqResp).toEqual({ validResponses: 2, errorResponses: 0, rejectedPayloads: 0 });
      expect(info?.scores.gossip.IPColocationFactor).toBe(0);
      expect(info?.scores.gossip.behavioralPenalty).toBe(0);
    }, WAIT);
  });
});
