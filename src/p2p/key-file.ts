/**
 * The chain's P2P identity key, stored as op-node stores it: 64 lowercase hex characters, no `0x`, no newline,
 * mode 0600; created when missing, so the peer ID survives restarts. `p2p.priv.raw` takes priority.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { bytesToHex } from "../core/codec/hex.js";
import { parseSecretKeyHex } from "../protocol/p2p/signing.js";

/** Loads the node key from `raw` or the file at `path`, generating and writing a new one when the file is missing. */
export async function loadOrCreateNodeKey(path: string, raw?: string): Promise<Uint8Array> {
  if (raw !== undefined && raw !== "") return parseSecretKeyHex(raw);
  if (path === "") throw new Error("no p2p private key path specified, cannot auto-generate key without path");
  let text: string | undefined;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (text !== undefined) return parseSecretKeyHex(text);
  let sk = randomBytes(32);
  while (!secp256k1.utils.isValidSecretKey(sk)) sk = randomBytes(32);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytesToHex(sk).slice(2), { mode: 0o600, flag: "wx" });
  return new Uint8Array(sk);
}
