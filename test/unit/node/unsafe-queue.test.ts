import { describe, expect, it } from "vitest";
import { type UnsafePayload, UnsafePayloadQueue, payloadMemSize } from "../../../src/node/sync/unsafe-queue.js";
import type { ExecutionPayloadEnvelope } from "../../../src/node/ports.js";
import type { L2BlockRef } from "../../../src/core/types/block-ref.js";
import { h } from "./fakes.js";

function env(n: number, tag = "", txBytes = 0): ExecutionPayloadEnvelope {
  return {
    executionPayload: {
      parentHash: h(`b${n - 1}`),
      feeRecipient: `0x${"00".repeat(20)}`,
      stateRoot: h(`s${n}${tag}`),
      prevRandao: h("r"),
      blockNumber: n,
      gasLimit: 30_000_000n,
      timestamp: 1000 + 2 * n,
      extraData: "0x",
      blockHash: h(`b${n}${tag}`),
      transactions: txBytes > 0 ? [`0x7e${"ab".repeat(txBytes - 1)}`] : [],
    },
  };
}

const ref = (n: number, tag = ""): L2BlockRef => ({
  hash: h(`b${n}${tag}`),
  number: n,
  parentHash: h(`b${n - 1}`),
  timestamp: 1000 + 2 * n,
  l1origin: { hash: h("l1"), number: 0 },
  sequenceNumber: n,
});

/** A payload as the queue holds it, with its block ref. */
function queued(e: ExecutionPayloadEnvelope): UnsafePayload {
  const p = e.executionPayload;
  return { envelope: e, ref: { ...ref(p.blockNumber), hash: p.blockHash, parentHash: p.parentHash } };
}

const numbers = (q: UnsafePayloadQueue): number[] => {
  const out: number[] = [];
  for (let e = q.pop(); e !== undefined; e = q.pop()) out.push(e.ref.number);
  return out;
};

describe("UnsafePayloadQueue (op-node PayloadsQueue)", () => {
  it("keeps payloads ordered by number, lowest first, and rejects duplicates by hash", () => {
    const q = new UnsafePayloadQueue();
    for (const n of [5, 3, 9, 4]) expect(q.push(queued(env(n)))).toBe("added");
    expect(q.push(queued(env(3)))).toBe("duplicate");
    expect(q.push(queued(env(3, "-sibling")))).toBe("added"); // same number, different block
    expect(q.length).toBe(5);
    expect(q.lowest()?.envelope.executionPayload.blockNumber).toBe(3);
    expect(numbers(q)).toEqual([3, 3, 4, 5, 9]);
    expect(q.byteSize).toBe(0);
    expect(q.push(queued(env(3)))).toBe("added"); // popped payloads may come again
  });

  it("sizes payloads as op-node (1000 + tx bytes + 24 per tx) and is bounded by memory, dropping the lowest", () => {
    expect(payloadMemSize(env(1))).toBe(1000);
    expect(payloadMemSize(env(1, "", 100))).toBe(1124);
    const q = new UnsafePayloadQueue(3 * 1124);
    for (const n of [10, 11, 12]) expect(q.push(queued(env(n, "", 100)))).toBe("added");
    expect(q.byteSize).toBe(3 * 1124);
    expect(q.push(queued(env(13, "", 100)))).toBe("added"); // 10 is dropped
    expect(q.push(queued(env(9, "", 100)))).toBe("dropped"); // would be the lowest: it is the one dropped
    expect(q.push(queued(env(14, "", 5000)))).toBe("too-large");
    expect(numbers(q)).toEqual([11, 12, 13]);
  });

  it("is bounded by count", () => {
    const q = new UnsafePayloadQueue(undefined, 4);
    for (let n = 1; n <= 6; n++) q.push(queued(env(n)));
    expect(q.length).toBe(4);
    expect(q.lowest()?.envelope.executionPayload.blockNumber).toBe(3);
  });

  it("drops payloads at or below the safe or unsafe head and at unsafe+1 with another parent", () => {
    const q = new UnsafePayloadQueue();
    const other = env(6, "-other");
    q.push(queued({ ...other, executionPayload: { ...other.executionPayload, parentHash: h("elsewhere") } }));
    for (const n of [2, 4, 6, 7]) q.push(queued(env(n)));
    // unsafe 5, safe 4: 2 and 4 are stale; 6 with another parent is dropped; 6 extending 5 is next.
    const next = q.nextFor(ref(5), ref(4));
    expect(next?.envelope.executionPayload.blockHash).toBe(h("b6"));
    expect(q.length).toBe(2);
    // Safe ahead of unsafe (derivation overtook gossip): everything up to safe goes.
    expect(q.nextFor(ref(5), ref(7))).toBeUndefined();
    expect(q.length).toBe(0);
  });

  it("hasNextFor says whether a payload extends the unsafe head, without dropping anything", () => {
    const q = new UnsafePayloadQueue();
    expect(q.hasNextFor(ref(5))).toBe(false);
    const other = env(6, "-other");
    q.push(queued({ ...other, executionPayload: { ...other.executionPayload, parentHash: h("elsewhere") } }));
    for (const n of [2, 8]) q.push(queued(env(n)));
    expect(q.hasNextFor(ref(5))).toBe(false); // 6 has another parent; 8 leaves a gap
    q.push(queued(env(6)));
    expect(q.hasNextFor(ref(5))).toBe(true); // the second 6 extends 5
    expect(q.hasNextFor(ref(5, "-x"))).toBe(false); // a different block 5
    expect(q.hasNextFor(ref(7))).toBe(true);
    expect(q.hasNextFor(ref(8))).toBe(false);
    expect(q.length).toBe(4);
  });

  it("returns nothing while there is a gap above the unsafe head, and popAbove serves EL sync", () => {
    const q = new UnsafePayloadQueue();
    for (const n of [3, 8, 9]) q.push(queued(env(n)));
    expect(q.nextFor(ref(5), ref(1))).toBeUndefined(); // 3 dropped, 8 waits for 6 and 7
    expect(q.length).toBe(2);
    expect(q.popAbove(8)?.envelope.executionPayload.blockNumber).toBe(9);
    expect(q.length).toBe(0);
  });
});
