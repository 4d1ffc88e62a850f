import { describe, expect, it } from "vitest";
import type { Hash } from "../../../../src/core/types/primitives.js";

import { encodeBlockMessage } from "../../../../src/protocol/p2p/gossip.js";
import { addressOfSecretKey, parseSecretKeyHex } from "../../../../src/protocol/p2p/signing.js";
import { snappyCompress, snappyUncompress } from "../../../../src/protocol/p2p/snappy.js";
import {
  type GossipValidationContext,
  SeenBlocks,
  type SignerView,
  validateBlockMessage,
} from "../../../../src/protocol/p2p/validate.js";
import { p2pRollup, samplePayload } from "./fixtures.js";

const SEQ = parseSecretKeyHex(`0x${"11".repeat(32)}`);
const OTHER = parseSecretKeyHex(`0x${"22".repeat(32)}`);
const T = 1_700_000_000;

function ctx(over: Partial<GossipValidationContext> = {}): GossipValidationContext {
  return {
    chainId: 901n,
    rollup: p2pRollup(),
    nowSec: T,
    maxAgeSec: 60,
    signer: { current: addressOfSecretKey(SEQ) },
    seen: new SeenBlocks(),
    ...over,
  };
}

const msg = (sk = SEQ, over = {}, v: 0 | 1 | 2 | 3 = 3) =>
  encodeBlockMessage(901n, samplePayload(v, { timestamp: T, ...over }), v, sk);

describe("gossip validation (op-node order)", () => {
  it("accepts a good block and hands back the envelope", () => {
    const r = validateBlockMessage(ctx(), 3, msg());
    expect(r.verdict).toBe("accept");
    expect(r.envelope?.executionPayload.timestamp).toBe(T);
  });
  it("rejects a forged signature, a wrong signer and the wrong chain's domain", () => {
    const good = msg();
    expect(validateBlockMessage(ctx(), 3, msg(OTHER)).reason).toBe("wrong-signer");
    const forged = encodeBlockMessage(902n, samplePayload(3, { timestamp: T }), 3, SEQ);
    expect(validateBlockMessage(ctx(), 3, forged)).toMatchObject({ verdict: "reject", reason: "wrong-signer" });

    const raw = Uint8Array.from(snappyUncompress(good));
    raw[64] = 5;
    expect(validateBlockMessage(ctx(), 3, snappyCompress(raw))).toMatchObject({
      verdict: "reject",
      reason: "bad-signature",
    });
  });
  it("ignores while no signer is known; the previous signer is valid inside its grace period only", () => {
    expect(validateBlockMessage(ctx({ signer: { current: undefined } }), 3, msg()).verdict).toBe("ignore");
    const rotated: SignerView = {
      current: addressOfSecretKey(OTHER),
      previous: addressOfSecretKey(SEQ),
      previousValidUntil: T,
    };
    expect(validateBlockMessage(ctx({ signer: rotated }), 3, msg()).verdict).toBe("accept");
    expect(
      validateBlockMessage(ctx({ signer: rotated, nowSec: T + 1 }), 3, msg(SEQ, { timestamp: T + 1 })).reason,
    ).toBe("wrong-signer");
  });
  it("time window: 60 s old is accepted, 61 s rejected; 5 s ahead accepted, 6 s rejected", () => {
    expect(validateBlockMessage(ctx(), 3, msg(SEQ, { timestamp: T - 60 })).verdict).toBe("accept");
    expect(validateBlockMessage(ctx(), 3, msg(SEQ, { timestamp: T - 61 })).reason).toBe("too-old");
    expect(validateBlockMessage(ctx(), 3, msg(SEQ, { timestamp: T + 5 })).verdict).toBe("accept");
    expect(validateBlockMessage(ctx(), 3, msg(SEQ, { timestamp: T + 6 })).reason).toBe("too-new");
  });
  it("size, snappy, decode-by-topic and block-hash failures reject", () => {
    expect(validateBlockMessage(ctx(), 3, Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff])).verdict).toBe(
      "reject",
    );
    expect(validateBlockMessage(ctx(), 3, snappyCompress(new Uint8Array(40))).reason).toBe("too-small");
    expect(validateBlockMessage(ctx(), 2, msg()).reason).toBe("invalid-payload");
    const env = samplePayload(3, { timestamp: T });
    const badHash = encodeBlockMessage(
      901n,
      { ...env, executionPayload: { ...env.executionPayload, blockHash: `0x${"ab".repeat(32)}` as Hash } },
      3,
      SEQ,
    );
    expect(validateBlockMessage(ctx(), 3, badHash).reason).toBe("bad-block-hash");
  });
  it("per-version rules: blob gas used only under Jovian", () => {
    expect(validateBlockMessage(ctx(), 3, msg(SEQ, { blobGasUsed: 5n })).reason).toBe("non-zero-blob-gas-used");
    const jovian = ctx({ rollup: p2pRollup({ jovian_time: 0 }) });
    expect(validateBlockMessage(jovian, 3, msg(SEQ, { blobGasUsed: 5n })).verdict).toBe("accept");
    expect(validateBlockMessage(ctx(), 1, msg(SEQ, {}, 1)).verdict).toBe("accept");
    expect(validateBlockMessage(ctx(), 0, msg(SEQ, {}, 0)).verdict).toBe("accept");
  });
  it("duplicates are ignored; a sixth distinct block at one height and everything after is rejected", () => {
    const c = ctx();
    expect(validateBlockMessage(c, 3, msg()).verdict).toBe("accept");
    expect(validateBlockMessage(c, 3, msg()).reason).toBe("duplicate");
    for (let i = 1; i <= 5; i++)
      expect(validateBlockMessage(c, 3, msg(SEQ, { gasUsed: BigInt(i) })).verdict).toBe("accept");
    expect(validateBlockMessage(c, 3, msg(SEQ, { gasUsed: 99n })).reason).toBe("too-many-blocks-at-height");
    expect(validateBlockMessage(c, 3, msg()).reason).toBe("too-many-blocks-at-height");
  });
});
