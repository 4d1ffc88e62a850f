import { createHash } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import { concat, keccak256, numberToHex, pad } from "viem";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../../../src/core/codec/hex.js";
import {
  decodeOpStackEntry,
  encodeOpStackEntry,
  encodeOpStackEntryRlp,
  opStackEntryMatches,
} from "../../../../src/protocol/p2p/enr-opstack.js";
import {
  blocksTopic,
  blocksTopics,
  encodeBlockMessage,
  gossipMessageId,
  payloadVersionAt,
} from "../../../../src/protocol/p2p/gossip.js";
import {
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeSuccessResponse,
  payloadByNumberProtocol,
} from "../../../../src/protocol/p2p/req-resp.js";
import {
  addressOfSecretKey,
  blockSigningHash,
  parseSecretKeyHex,
  recoverSigner,
  signHash,
} from "../../../../src/protocol/p2p/signing.js";
import {
  maskedCrc32c,
  snappyCompress,
  snappyFrameDecode,
  snappyFrameEncode,
  snappyUncompress,
} from "../../../../src/protocol/p2p/snappy.js";
import {
  decodeEnvelopeSsz,
  decodePayloadSsz,
  encodeEnvelopeSsz,
  encodePayloadSsz,
  type PayloadVersion,
} from "../../../../src/protocol/p2p/ssz-payload.js";
import { p2pRollup, samplePayload } from "./fixtures.js";

const SK = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";

describe("opstack ENR entry", () => {
  it.each([
    [10n, "0a00", "820a00"],
    [8453n, "854200", "83854200"],
    [11155420n, "dcefa80500", "85dcefa80500"],
    [901n, "850700", "83850700"],
  ])("chain %s → %s / %s", (id, content, rlp) => {
    expect(bytesToHex(encodeOpStackEntry(id))).toBe(`0x${content}`);
    expect(bytesToHex(encodeOpStackEntryRlp(id))).toBe(`0x${rlp}`);
    expect(decodeOpStackEntry(hexToBytes(`0x${content}ffff`))).toEqual({ chainId: id, version: 0n });
    expect(opStackEntryMatches(hexToBytes(`0x${content}`), id)).toBe(true);
    expect(opStackEntryMatches(hexToBytes(`0x${content}`), id + 1n)).toBe(false);
  });
  it("rejects a non-zero version and garbage", () => {
    expect(opStackEntryMatches(encodeOpStackEntry(10n, 1n), 10n)).toBe(false);
    expect(opStackEntryMatches(hexToBytes("0xffff"), 10n)).toBe(false);
    expect(opStackEntryMatches(undefined, 10n)).toBe(false);
  });
});

describe("topics and protocol IDs", () => {
  it("names the four block topics and the req-resp protocol", () => {
    expect(blocksTopics(901n)).toEqual([
      "/optimism/901/0/blocks",
      "/optimism/901/1/blocks",
      "/optimism/901/2/blocks",
      "/optimism/901/3/blocks",
    ]);
    expect(payloadByNumberProtocol(11155420n)).toBe("/opstack/req/payload_by_number/11155420/0");
  });
  it("picks the topic of the active fork", () => {
    const cfg = p2pRollup({ canyon_time: 100, ecotone_time: 200, isthmus_time: 300 });
    expect([50, 100, 250, 300, 10_000].map((t) => payloadVersionAt(cfg, t))).toEqual([0, 1, 2, 3, 3]);
  });
});

describe("block signature", () => {
  it("signing hash = keccak(domain ‖ uint256(chainId) ‖ keccak(payload)) and matches a viem signature", async () => {
    const payload = hexToBytes("0xdeadbeef00");
    const want = keccak256(concat([pad("0x", { size: 32 }), numberToHex(901n, { size: 32 }), keccak256(payload)]));
    const hash = blockSigningHash(901n, payload);
    expect(bytesToHex(hash)).toBe(want);
    const sk = parseSecretKeyHex(SK);
    const sig = signHash(hash, sk);
    const acct = privateKeyToAccount(SK);
    const viemSig = hexToBytes(await acct.sign({ hash: want }));
    expect(bytesToHex(sig.subarray(0, 64))).toBe(bytesToHex(viemSig.subarray(0, 64)));
    expect(sig[64]).toBe((viemSig[64] as number) - 27);
    expect(recoverSigner(hash, sig)).toBe(acct.address.toLowerCase());
    expect(addressOfSecretKey(sk)).toBe(acct.address.toLowerCase());
    const forged = Uint8Array.from(sig);
    forged[64] = 27;
    expect(recoverSigner(hash, forged)).toBeNull();
  });
  it("key text: optional 0x and whitespace, exactly 32 bytes of hex", () => {
    expect(bytesToHex(parseSecretKeyHex(` ${SK.slice(2)}\n`))).toBe(SK);
    expect(() => parseSecretKeyHex("zz")).toThrow(/hex chars/);
    expect(() => parseSecretKeyHex("0xabcd")).toThrow(/from 2 bytes/);
  });
});

describe("SSZ execution payload", () => {
  it.each([0, 1, 2, 3] as PayloadVersion[])("V%s round-trips with op-node's offsets", (v) => {
    const env = samplePayload(v);
    const bytes = encodePayloadSsz(env.executionPayload, v);
    const fixed = [508, 512, 528, 560][v] as number;
    const view = new DataView(bytes.buffer);
    expect(view.getUint32(436, true)).toBe(fixed);
    expect(view.getUint32(504, true)).toBe(fixed + 2);
    expect(view.getBigUint64(404, true)).toBe(1234n);
    expect(bytes[440]).toBe(7); // baseFee little-endian
    expect(bytes[440 + 25]).toBe(1);
    expect(bytes.length).toBe(fixed + 2 + 8 + 5 + 7);
    expect(decodePayloadSsz(bytes, v)).toEqual(env.executionPayload);
    const full = encodeEnvelopeSsz(env, v);
    expect(full.length).toBe(bytes.length + (v >= 2 ? 32 : 0));
    expect(decodeEnvelopeSsz(full, v)).toEqual(env);
  });
  it("rejects a payload of another version (extraData offset) and bad offsets", () => {
    const v4 = encodePayloadSsz(samplePayload(3).executionPayload, 3);
    expect(() => decodePayloadSsz(v4, 2)).toThrow(/extraData offset/);
    const bad = Uint8Array.from(v4);
    new DataView(bad.buffer).setUint32(504, 560 + 40, true);
    expect(() => decodePayloadSsz(bad, 3)).toThrow(/transactions offset/);
    expect(() => decodePayloadSsz(v4.subarray(0, 100), 3)).toThrow(/below the fixed size/);
  });
});

describe("snappy", () => {
  it("block format round-trips and checks the declared length", () => {
    const data = new TextEncoder().encode("hello hello hello hello hello");
    expect(snappyUncompress(snappyCompress(data))).toEqual(data);
    expect(() => snappyUncompress(snappyCompress(data), 4)).toThrow(/exceeds/);
  });
  it("framing: stream id, masked CRC-32C, both chunk kinds, padding skipped", () => {
    // CRC-32C("123456789") = 0xe3069283 (RFC 3720 check value)
    const crc = 0xe3069283;
    expect(maskedCrc32c(new TextEncoder().encode("123456789"))).toBe(
      ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0,
    );
    const big = new Uint8Array(150_000).map((_, i) => i % 7);
    const framed = snappyFrameEncode(big);
    expect(bytesToHex(framed.subarray(0, 10))).toBe("0xff060000734e61507059");
    expect(snappyFrameDecode(framed)).toEqual(big);
    const random = new Uint8Array(100).map((_, i) => (i * 2654435761) >>> 24);
    const rf = snappyFrameEncode(random);
    expect(rf[10]).toBe(0x01); // incompressible: stored
    const padded = new Uint8Array([...rf, 0xfe, 2, 0, 0, 9, 9]);
    expect(snappyFrameDecode(padded)).toEqual(random);
    expect(() => snappyFrameDecode(new Uint8Array([...rf, 0x05, 0, 0, 0]))).toThrow(/reserved/);
  });
});

describe("gossip message ID", () => {
  const topic = "/optimism/901/3/blocks";
  const ref = (domain: number, body: Uint8Array): string => {
    const t = Buffer.from(topic);
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(t.length));
    const d = Buffer.from([domain, 0, 0, 0]);
    return createHash("sha256")
      .update(Buffer.concat([d, len, t, body]))
      .digest()
      .subarray(0, 20)
      .toString("hex");
  };
  it("hashes the decompressed body under domain 1", () => {
    const body = new TextEncoder().encode("some block bytes some block bytes");
    expect(Buffer.from(gossipMessageId(topic, snappyCompress(body))).toString("hex")).toBe(ref(1, body));
  });
  it("hashes the raw data under domain 0 when it does not decode", () => {
    const raw = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    expect(Buffer.from(gossipMessageId(topic, raw)).toString("hex")).toBe(ref(0, raw));
  });
});

describe("gossip message and req-resp frames", () => {
  it("encodes signature ‖ ssz under snappy", () => {
    const env = samplePayload(3);
    const sk = parseSecretKeyHex(SK);
    const data = snappyUncompress(encodeBlockMessage(901n, env, 3, sk));
    const payload = data.subarray(65);
    expect(payload).toEqual(encodeEnvelopeSsz(env, 3));
    expect(recoverSigner(blockSigningHash(901n, payload), data.subarray(0, 65))).toBe(addressOfSecretKey(sk));
    expect(blocksTopic(901n, 3)).toBe("/optimism/901/3/blocks");
  });
  it("request is u64 LE; a success response carries version 1 for envelopes", () => {
    expect(bytesToHex(encodeRequest(0x0102))).toBe("0x0201000000000000");
    expect(decodeRequest(encodeRequest(77))).toBe(77);
    expect(() => decodeRequest(new Uint8Array(7))).toThrow();
    const cfg = p2pRollup();
    const n = 1234;
    const env = samplePayload(3, { blockNumber: n, timestamp: cfg.genesis.l2_time + n * 2 });
    const resp = encodeSuccessResponse(cfg, env);
    expect(Array.from(resp.subarray(0, 5))).toEqual([0, 1, 0, 0, 0]);
    expect(decodeResponse(cfg, n, resp)).toEqual({ code: 0, envelope: env });
    expect(() => decodeResponse(cfg, n + 1, resp)).toThrow(/asked/);
    expect(decodeResponse(cfg, n, Uint8Array.from([1]))).toEqual({ code: 1 });
    const v2 = Uint8Array.from(resp);
    v2[1] = 2;
    expect(() => decodeResponse(cfg, n, v2)).toThrow(/unrecognized version/);
  });
});
