import { bytesToHex, hexToBytes } from "../core/codec/hex.js";
import { DecodeError } from "../core/errors/supernode-error.js";
import type { Hash } from "../core/types/primitives.js";
import { keccak } from "./block/keccak.js";

/** Output root version 0 (32 zero bytes). */
export const OUTPUT_VERSION_V0: Hash = `0x${"00".repeat(32)}`;

/** The preimage fields of a version-0 output root. */
export interface OutputV0 {
  readonly stateRoot: Hash;
  /** Storage root of L2ToL1MessagePasser (`withdrawalStorageRoot`). */
  readonly messagePasserStorageRoot: Hash;
  readonly blockHash: Hash;
}

function h32(h: Hash, what: string): Uint8Array {
  const b = hexToBytes(h);
  if (b.length !== 32) throw new DecodeError(`output root: ${what} must be 32 bytes`);
  return b;
}

/** `version(32) ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash`: the 128-byte preimage. */
export function encodeOutputV0(o: OutputV0): Uint8Array {
  const out = new Uint8Array(128);
  out.set(h32(o.stateRoot, "stateRoot"), 32);
  out.set(h32(o.messagePasserStorageRoot, "messagePasserStorageRoot"), 64);
  out.set(h32(o.blockHash, "blockHash"), 96);
  return out;
}

/** Decodes a 128-byte version-0 output-root preimage. */
export function decodeOutputV0(preimage: Uint8Array): OutputV0 {
  if (preimage.length !== 128) throw new DecodeError(`output v0 preimage must be 128 bytes, got ${preimage.length}`);
  for (let i = 0; i < 32; i++) if (preimage[i] !== 0) throw new DecodeError("unsupported output root version");
  return {
    stateRoot: bytesToHex(preimage.subarray(32, 64)),
    messagePasserStorageRoot: bytesToHex(preimage.subarray(64, 96)),
    blockHash: bytesToHex(preimage.subarray(96, 128)),
  };
}

/** keccak256 of the version-0 preimage. */
export function outputRootV0(o: OutputV0): Hash {
  return bytesToHex(keccak(encodeOutputV0(o)));
}
