import { afterAll, describe, expect, it, vi } from "vitest";
import type { Hash } from "../../../src/core/types/primitives.js";
import type { ExecutionPayloadEnvelope } from "../../../src/protocol/engine-api-types.js";
import { encodeRequest } from "../../../src/protocol/p2p/req-resp.js";
import { addressOfSecretKey, parseSecretKeyHex } from "../../../src/protocol/p2p/signing.js";
import { samplePayload } from "../../unit/protocol/p2p/fixtures.js";
import { P2PRig } from "./rig.js";

const seqAddr = addressOfSecretKey(parseSecretKeyHex(`0x${"11".repeat(32)}`));
const rig = new P2PRig();
afterAll(() => rig.closeAll());

const G = 1_600_000_000;
/** Blocks 1..n linked by parent hash, at the rollup's schedule (genesis time + 2 s per block). */
function chain(n: number, salt = 0): ExecutionPayloadEnvelope[] {
  const out: ExecutionPayloadEnvelope[] = [];
  let parent: Hash = `0x${"00".repeat(31)}${salt.toString(16).padStart(2, "0")}`;
  for (let i = 1; i <= n; i++) {
    const e = samplePayload(3, { blockNumber: i, timestamp: G + 2 * i, parentHash: parent });
    out.push(e);
    parent = e.executionPayload.blockHash;
  }
  return out;
}

describe("payload_by_number req-resp (loopback)", () => {
  it("serves blocks with op-node's result codes and fills a gap from a trusted block down", async () => {
    const blocks = chain(6);
    const server = await rig.host(901n, { signer: () => seqAddr });
    await server.p2p.servePayloads(async (n) => blocks[n - 1]);
    const client = await rig.host(901n, { signer: () => seqAddr });
    await client.p2p.connect(server.p2p.addrs()[0] as string);
    const pid = client.p2p.host.getConnections()[0]?.remotePeer;
    if (pid === undefined) throw new Error("not connected");

    const got = await client.p2p.reqResp.request(pid, 3);
    expect(got).toEqual(blocks[2]);
    await expect(client.p2p.reqResp.request(pid, 99)).rejects.toThrow(/result code 1/);
    await expect(client.p2p.reqResp.request(pid, 10 ** 12)).rejects.toThrow(/result code 2/);
    expect(client.p2p.peers.appCounters(server.p2p.peerId)).toEqual({
      validResponses: 1,
      errorResponses: 1,
      rejectedPayloads: 0,
    });

    // The node saw block 6 (queued) with unsafe head 1: the gap is 2..5.
    const top = blocks[5] as ExecutionPayloadEnvelope;
    client.p2p.requestRange(1, { number: 6, parentHash: top.executionPayload.parentHash });
    await vi.waitFor(() => expect(client.received.length).toBe(4), { timeout: 20_000, interval: 20 });
    expect(client.received.map((r) => r.env.executionPayload.blockNumber)).toEqual([5, 4, 3, 2]);
    expect(client.received.map((r) => r.env)).toEqual([blocks[4], blocks[3], blocks[2], blocks[1]]);
  });

  it("a peer serving another chain's blocks is not believed and is scored", async () => {
    const honest = chain(4);
    const forged = chain(4, 7);
    const liar = await rig.host(901n, { signer: () => seqAddr });
    await liar.p2p.servePayloads(async (n) => forged[n - 1]);
    const client = await rig.host(901n, { signer: () => seqAddr });
    await client.p2p.connect(liar.p2p.addrs()[0] as string);
    const top = honest[3] as ExecutionPayloadEnvelope;
    const filled = await client.p2p.reqResp.fillGap(0, 4, top.executionPayload.parentHash, (env) =>
      client.received.push({ env, from: "req-resp" }),
    );
    expect(filled).toBe(0);
    expect(client.received).toEqual([]);
    expect(client.p2p.peers.appCounters(liar.p2p.peerId).rejectedPayloads).toBe(1);
    expect(client.p2p.peers.appScore(liar.p2p.peerId)).toBeLessThan(-19);
  });

  it("a client that resets its stream before the answer does not take the server down", async () => {
    const blocks = chain(3);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let asked = 0;
    const server = await rig.host(901n, { signer: () => seqAddr });
    await server.p2p.servePayloads(async (n) => {
      asked++;
      if (asked === 1) {
        // the first request fails (its EL did not answer) only after its client is gone
        await gate;
        throw new Error("execution client unavailable");
      }
      return blocks[n - 1];
    });
    const client = await rig.host(901n, { signer: () => seqAddr });
    await client.p2p.connect(server.p2p.addrs()[0] as string);
    const pid = client.p2p.host.getConnections()[0]?.remotePeer;
    if (pid === undefined) throw new Error("not connected");
    const stream = await client.p2p.host.dialProtocol(pid, server.p2p.reqResp.protocol);
    stream.send(encodeRequest(2));
    await stream.close(); // the end of the request, as the client sends it
    await vi.waitFor(() => expect(asked).toBe(1), { timeout: 10_000, interval: 10 });
    stream.abort(new Error("client gone"));
    // the reset has reached the server: its end of the request stream is gone
    const proto = server.p2p.reqResp.protocol;
    const open = () =>
      server.p2p.host.getConnections().flatMap((c) => c.streams.filter((x) => x.protocol === proto)).length;
    await vi.waitFor(() => expect(open()).toBe(0), { timeout: 10_000, interval: 10 });
    release();
    // The server answers the next request (an unhandled failure of the first would have ended the process).
    expect(await client.p2p.reqResp.request(pid, 3)).toEqual(blocks[2]);
  });
});
