import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { blocksTopic, blocksTopics } from "../../../src/protocol/p2p/gossip.js";
import { addressOfSecretKey, parseSecretKeyHex } from "../../../src/protocol/p2p/signing.js";
import { samplePayload } from "../../unit/protocol/p2p/fixtures.js";
import { P2PRig, type RigHost } from "./rig.js";

const SEQ = `0x${"11".repeat(32)}`;
const OTHER = `0x${"22".repeat(32)}`;
const seqAddr = addressOfSecretKey(parseSecretKeyHex(SEQ));

const rig = new P2PRig();
afterAll(() => rig.closeAll());

const now = (): number => Math.floor(Date.now() / 1000);
const block = (n: number, chainId: bigint) =>
  samplePayload(3, { blockNumber: n, timestamp: now(), feeRecipient: `0x${chainId.toString(16).padStart(40, "0")}` });

async function link(a: RigHost, b: RigHost, chainId: bigint): Promise<void> {
  await b.p2p.connect(`${a.p2p.addrs()[0]}`);
  const topic = blocksTopic(chainId, 3);
  await vi.waitFor(
    () => {
      expect(a.p2p.pubsub.getSubscribers(topic).map(String)).toContain(b.p2p.peerId);
      expect(b.p2p.pubsub.getSubscribers(topic).map(String)).toContain(a.p2p.peerId);
    },
    { timeout: 20_000, interval: 50 },
  );
}

describe("block gossip between two supernodes' hosts (loopback)", () => {
  it("carries each chain's blocks both ways and keeps chains apart", async () => {
    // Supernode A and B each host chains 901 and 902; A sequences 901, B sequences 902.
    const a901 = await rig.host(901n, { signer: () => seqAddr, sequencerKey: SEQ });
    const a902 = await rig.host(902n, { signer: () => seqAddr });
    const b901 = await rig.host(901n, { signer: () => seqAddr });
    const b902 = await rig.host(902n, { signer: () => seqAddr, sequencerKey: SEQ });
    await link(a901, b901, 901n);
    await link(a902, b902, 902n);

    // Isolation: a 901 host joins only 901's topics.
    expect(a901.p2p.pubsub.getTopics().sort()).toEqual(blocksTopics(901n).sort());
    expect(b902.p2p.pubsub.getTopics().sort()).toEqual(blocksTopics(902n).sort());

    const e1 = block(10, 901n);
    await a901.p2p.publish(e1);
    await vi.waitFor(
      () => expect(b901.received.map((r) => r.env.executionPayload.blockHash)).toContain(e1.executionPayload.blockHash),
      {
        timeout: 20_000,
        interval: 20,
      },
    );
    expect(b901.received[0]?.from).toBe(a901.p2p.peerId);
    const e2 = block(11, 902n);
    await b902.p2p.publish(e2);
    await vi.waitFor(
      () => expect(a902.received.map((r) => r.env.executionPayload.blockHash)).toContain(e2.executionPayload.blockHash),
      {
        timeout: 20_000,
        interval: 20,
      },
    );
    // Nothing crossed chains, and the sequencers never hand their own blocks to themselves.
    expect(a902.received.map((r) => r.env.executionPayload.blockHash)).toEqual([e2.executionPayload.blockHash]);
    expect(b901.received.map((r) => r.env.executionPayload.blockHash)).toEqual([e1.executionPayload.blockHash]);
    expect(a901.received).toEqual([]);
    expect(b902.received).toEqual([]);
  });

  it("a forged signature is rejected and the sender's block never reaches the node", async () => {
    const rejects: string[] = [];
    const bad = await rig.host(901n, { signer: () => seqAddr, sequencerKey: OTHER });
    const good = await rig.host(901n, { signer: () => seqAddr });
    const v = good.p2p.pubsub;
    const orig = v.topicValidators.get(blocksTopic(901n, 3));
    if (orig === undefined) throw new Error("no validator");
    v.topicValidators.set(blocksTopic(901n, 3), async (peer, msg) => {
      const r = await orig(peer, msg);
      rejects.push(r);
      return r;
    });
    await link(bad, good, 901n);
    const e = block(20, 901n);
    await bad.p2p.publish(e);
    await vi.waitFor(() => expect(rejects).toContain("reject"), { timeout: 20_000, interval: 20 });
    expect(good.received).toEqual([]);
  });

  it("keeps the same peer ID across restarts (key file: 64 hex chars, mode 0600)", async () => {
    const dir = await rig.dir();
    const h1 = await rig.host(901n, { dir, signer: () => seqAddr });
    const id = h1.p2p.peerId;
    await rig.stop(h1.p2p);
    const text = await readFile(join(dir, "p2p_priv.txt"), "utf8");
    expect(text).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(join(dir, "p2p_priv.txt"))).mode & 0o777).toBe(0o600);
    const h2 = await rig.host(901n, { dir, signer: () => seqAddr });
    expect(h2.p2p.peerId).toBe(id);
    expect(id.startsWith("16Uiu2HA")).toBe(true);
  });
});
