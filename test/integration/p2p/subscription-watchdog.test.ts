import { Registry } from "prom-client";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createP2PMetrics } from "../../../src/p2p/metrics.js";
import { blocksTopics } from "../../../src/protocol/p2p/gossip.js";
import { addressOfSecretKey, parseSecretKeyHex } from "../../../src/protocol/p2p/signing.js";
import { P2PRig, type RigHost } from "./rig.js";

/**
 * The subscription watchdog on real libp2p hosts over loopback, with short timing: a peer connected past the grace
 * period that is not subscribed to any of the chain's block topics (here: a host of another chain, which subscribes
 * to its own chain's topics only) has its connections closed and is counted, a subscribed peer stays, and a static
 * peer that was reset is redialled at once (not on the minute timer) and not reset again within the back-off.
 */
const seqAddr = addressOfSecretKey(parseSecretKeyHex(`0x${"11".repeat(32)}`));
const signer = () => seqAddr;
const FAST = {
  staticRedialMs: 600_000,
  staticReconnectMs: 100,
  subscriptionCheckMs: 100,
  subscriptionGraceMs: 400,
  subscriptionBackoffMs: 600_000,
};
const WAIT = { timeout: 20_000, interval: 25 };

const rig = new P2PRig();
afterAll(() => rig.closeAll());

const connectedTo = (a: RigHost, b: RigHost): boolean => a.p2p.host.getConnections(b.p2p.host.peerId).length > 0;
const addr = (h: RigHost): string => h.p2p.addrs()[0] as string;
const seesSubscribed = (a: RigHost, b: RigHost, chainId: bigint): boolean =>
  blocksTopics(chainId).some((t) => a.p2p.pubsub.getSubscribers(t).some((p) => p.toString() === b.p2p.peerId));
async function resets(registry: Registry): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === "supernode_p2p_subscription_resets_total");
  return Number(m?.values[0]?.value ?? Number.NaN);
}

describe("subscription watchdog (loopback)", () => {
  it("closes a peer that subscribes to none of the chain's topics and keeps a subscribed one", async () => {
    const registry = new Registry();
    const a = await rig.host(901n, { signer, timing: FAST, metrics: createP2PMetrics(registry, 901n) });
    const good = await rig.host(901n, { signer });
    const other = await rig.host(902n, { signer });
    await good.p2p.connect(addr(a));
    await vi.waitFor(() => expect(seesSubscribed(a, good, 901n)).toBe(true), WAIT);
    await other.p2p.connect(addr(a));
    await vi.waitFor(async () => expect(await resets(registry)).toBe(1), WAIT);
    await vi.waitFor(() => expect(connectedTo(a, other) || connectedTo(other, a)).toBe(false), WAIT);
    // the subscribed peer, connected for longer, went through the same checks and stays
    expect(connectedTo(a, good)).toBe(true);
    expect(connectedTo(good, a)).toBe(true);
  });

  it("redials a static peer it reset, promptly, and leaves it alone within the back-off", async () => {
    const registry = new Registry();
    const b = await rig.host(902n, { signer });
    const a = await rig.host(901n, {
      signer,
      static: [addr(b)],
      timing: FAST,
      metrics: createP2PMetrics(registry, 901n),
    });
    await vi.waitFor(() => expect(connectedTo(a, b)).toBe(true), WAIT);
    const first = a.p2p.host.getConnections(b.p2p.host.peerId)[0]?.id;
    expect(a.p2p.peers.isStatic(b.p2p.peerId)).toBe(true);

    await vi.waitFor(async () => expect(await resets(registry)).toBe(1), WAIT);
    await vi.waitFor(() => {
      const conns = a.p2p.host.getConnections(b.p2p.host.peerId);
      expect(conns.length).toBe(1);
      expect(conns[0]?.id).not.toBe(first);
      expect(conns[0]?.direction).toBe("outbound");
    }, WAIT);
    expect(a.p2p.peers.isStatic(b.p2p.peerId)).toBe(true);
    // the new connection outlives the grace period by several checks and is not reset again (back-off)
    const second = a.p2p.host.getConnections(b.p2p.host.peerId)[0]?.id;
    await new Promise((r) => setTimeout(r, FAST.subscriptionGraceMs + 5 * FAST.subscriptionCheckMs));
    expect(a.p2p.host.getConnections(b.p2p.host.peerId)[0]?.id).toBe(second);
    expect(await resets(registry)).toBe(1);
  });
});
