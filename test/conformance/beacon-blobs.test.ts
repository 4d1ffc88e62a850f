import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import { bytesToHex, hexToBytes } from "../../src/core/codec/hex.js";
import { blobToKzgCommitment, blobToVersionedHash } from "../../src/io/beacon/kzg.js";
import { kzgToVersionedHash } from "../../src/protocol/l1/kzg.js";
import { conformanceAvailable, readConformanceJson } from "./conformance-dir.js";

const have = conformanceAvailable("op-service/beacon");

interface Sidecar {
  index: string;
  blob: string;
  kzg_commitment: string;
  signed_block_header: { message: { slot: string } };
}

describe.skipIf(!have)("conformance: beacon blob sidecars (Goerli slot 7422094)", () => {
  it("KZG commitment of each blob matches, and versioned hashes are 0x01 ‖ sha256(c)[1:]", () => {
    const json = readConformanceJson("op-service/beacon/eth_v1_beacon_blob_sidecars_7422094_goerli.json") as {
      data: Sidecar[];
    };
    expect(json.data).toHaveLength(5);
    for (const s of json.data) {
      expect(s.signed_block_header.message.slot).toBe("7422094");
      const blob = hexToBytes(s.blob);
      const c = blobToKzgCommitment(blob);
      expect(bytesToHex(c)).toBe(s.kzg_commitment.toLowerCase());
      const vh = kzgToVersionedHash(s.kzg_commitment as `0x${string}`);
      const expected = sha256(hexToBytes(s.kzg_commitment));
      expected[0] = 1;
      expect(vh).toBe(bytesToHex(expected));
      expect(blobToVersionedHash(blob)).toBe(vh);
    }
  });

  it("genesis and spec responses carry the slot-time parameters", () => {
    const g = readConformanceJson("op-service/beacon/eth_v1_beacon_genesis_goerli.json") as {
      data: { genesis_time: string };
    };
    const spec = readConformanceJson("op-service/beacon/eth_v1_config_spec_goerli.json") as {
      data: { SECONDS_PER_SLOT: string };
    };
    expect(Number(g.data.genesis_time)).toBe(1606824023);
    expect(Number(spec.data.SECONDS_PER_SLOT)).toBe(12);
  });
});
