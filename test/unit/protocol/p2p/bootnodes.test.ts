import { secp256k1 } from "@noble/curves/secp256k1.js";
import { describe, expect, it } from "vitest";
import { bootnodeList, DEFAULT_BOOTNODES, parseEnode } from "../../../../src/protocol/p2p/bootnodes.js";

describe("bootnodes", () => {
  it("op-node's 13 defaults (its DefaultBootnodes; the reference note says 14) when none are configured; configured ones (blank items dropped) otherwise", () => {
    expect(DEFAULT_BOOTNODES).toHaveLength(13);
    expect(bootnodeList([])).toBe(DEFAULT_BOOTNODES);
    expect(bootnodeList([" ", ""])).toBe(DEFAULT_BOOTNODES);
    expect(bootnodeList([" enr:-abc ", ""])).toEqual(["enr:-abc"]);
  });

  it("parses every default enode: compressed key on the curve, host, tcp and discport", () => {
    for (const s of DEFAULT_BOOTNODES.filter((x) => x.startsWith("enode://"))) {
      const e = parseEnode(s);
      expect(e.publicKey).toHaveLength(33);
      const full = secp256k1.Point.fromBytes(e.publicKey).toBytes(false);
      expect(Buffer.from(full.subarray(1)).toString("hex")).toBe(s.slice(8, 136).toLowerCase());
      expect(e.udp).toBeGreaterThan(0);
    }
    const conduit = parseEnode(DEFAULT_BOOTNODES[7] as string);
    expect(conduit).toMatchObject({ host: "bootnode.conduit.xyz", tcp: 0, udp: 30301 });
    const opLabs = parseEnode(DEFAULT_BOOTNODES[0] as string);
    expect(opLabs).toMatchObject({ host: "34.65.67.101", tcp: 30305, udp: 30305 });
  });

  it("rejects malformed enodes with a critical error naming the problem", () => {
    const key = "ab".repeat(64);
    expect(() => parseEnode(`enode://${key.slice(2)}@1.2.3.4:1`)).toThrow(/not a valid enode URL/);
    expect(() => parseEnode(`enode://${"00".repeat(64)}@1.2.3.4:1`)).toThrow(/not on the curve/);
    const pub = Buffer.from(secp256k1.getPublicKey(new Uint8Array(32).fill(7), false).subarray(1)).toString("hex");
    expect(() => parseEnode(`enode://${pub}@1.2.3.4:70000`)).toThrow(/bad tcp port/);
    expect(() => parseEnode(`enode://${pub}@1.2.3.4:0`)).toThrow(/no UDP port/);
    expect(parseEnode(`enode://${pub}@[::1]:30303?discport=30301`)).toMatchObject({ host: "::1", udp: 30301 });
  });
});
