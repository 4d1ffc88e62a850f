import { ENR } from "@chainsafe/enr";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { describe, expect, it } from "vitest";
import { bootnodeEnr, dialTarget, enrOnChain, localEnr } from "../../../src/p2p/enr.js";

const sk = new Uint8Array(32).fill(9);
const pubHex = Buffer.from(secp256k1.getPublicKey(sk, false).subarray(1)).toString("hex");
const noDns = async (h: string): Promise<string> => {
  throw new Error(`unexpected lookup of ${h}`);
};

describe("ENR records", () => {
  it("the local record: signed, seq as given, opstack content, address; dial target = our peer ID over TCP", () => {
    const enr = localEnr(sk, 901n, { ip: "127.0.0.1", tcp: 9222, udp: 30303, seq: 1_700_000_000_000n });
    const back = ENR.decodeTxt(enr.encodeTxt()); // verifies the signature
    expect(back.seq).toBe(1_700_000_000_000n);
    expect(Buffer.from(back.kvs.get("opstack") as Uint8Array).toString("hex")).toBe("850700");
    expect([back.ip, back.tcp, back.udp]).toEqual(["127.0.0.1", 9222, 30303]);
    expect(enrOnChain(back, 901n)).toBe(true);
    expect(enrOnChain(back, 902n)).toBe(false);
    expect(dialTarget(back)).toEqual({
      peerId: back.peerId.toString(),
      addr: "/ip4/127.0.0.1/tcp/9222",
      ip: "127.0.0.1",
    });
    const v6 = ENR.decodeTxt(localEnr(sk, 10n, { ip: "::1", tcp: 1, udp: 2, seq: 5n }).encodeTxt());
    expect(dialTarget(v6)?.addr).toBe("/ip6/::1/tcp/1");
  });

  it("op-node's filter: no entry, another chain, version ≠ 0 or garbage are dropped; trailing bytes are ignored", () => {
    const record = (opstack?: number[]) =>
      ENR.decodeTxt(
        (() => {
          const e = localEnr(sk, 901n, { ip: "10.0.0.1", tcp: 1, udp: 1, seq: 1n });
          if (opstack === undefined) e.delete("opstack");
          else e.set("opstack", Uint8Array.from(opstack));
          return e.encodeTxt();
        })(),
      );
    expect(enrOnChain(record(), 901n)).toBe(false);
    expect(enrOnChain(record([0x85, 0x07, 0x01]), 901n)).toBe(false); // version 1
    expect(enrOnChain(record([0x85]), 901n)).toBe(false); // truncated uvarint
    expect(enrOnChain(record([0x85, 0x07, 0x00, 0xff, 0xff]), 901n)).toBe(true); // extension bytes
  });

  it("bootnodes: enr: as-is; enode:// → unsigned seq-0 record with key, IP, UDP (discport) and TCP", async () => {
    const signed = localEnr(sk, 901n, { ip: "127.0.0.1", tcp: 9, udp: 10, seq: 3n }).encodeTxt();
    expect((await bootnodeEnr(signed, noDns)).encodeTxt()).toBe(signed);
    const e = await bootnodeEnr(`enode://${pubHex}@127.0.0.2:30305?discport=30301`, noDns);
    expect(e.seq).toBe(0n);
    expect([e.ip, e.udp, e.tcp]).toEqual(["127.0.0.2", 30301, 30305]);
    expect(e.nodeId).toBe(ENR.decodeTxt(signed).nodeId);
    const noTcp = await bootnodeEnr(`enode://${pubHex}@bootnode.example:0?discport=30301`, async () => "127.0.0.3");
    expect([noTcp.ip, noTcp.udp, noTcp.tcp]).toEqual(["127.0.0.3", 30301, undefined]);
    expect(dialTarget(noTcp)).toBeUndefined();
    await expect(bootnodeEnr("enode://nope", noDns)).rejects.toThrow(/not a valid enode URL/);
    await expect(bootnodeEnr("enr:-garbage", noDns)).rejects.toThrow();
  });
});
