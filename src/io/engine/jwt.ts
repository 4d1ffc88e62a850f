import { readFile } from "node:fs/promises";
import { SignJWT } from "jose";
import { CriticalError } from "../../core/errors/supernode-error.js";
import { nowSec, type Clock } from "../../core/time/clock.js";

/**
 * Reads an Engine API JWT secret file: 32 bytes as hex, optional `0x`, surrounding whitespace ignored.
 * A missing or malformed file is a CriticalError (the chain cannot talk to its execution client).
 */
export async function readJwtSecret(path: string): Promise<Uint8Array> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new CriticalError("JWT_SECRET", `cannot read JWT secret file ${path}: ${(err as Error).message}`, { path });
  }
  return parseJwtSecret(text, path);
}

export function parseJwtSecret(text: string, source = "JWT secret"): Uint8Array {
  const body = text.trim().replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]{64}$/.test(body)) {
    throw new CriticalError("JWT_SECRET", `${source}: expected 32 bytes of hex`, { source });
  }
  return Uint8Array.from(Buffer.from(body, "hex"));
}

/** An HS256 token whose only claim is `iat` (the EL accepts ±60 s around its clock). */
export function mintJwt(secret: Uint8Array, iatSec: number): Promise<string> {
  return new SignJWT({ iat: iatSec }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(secret);
}

/** A headers provider for HttpRpcClient: a fresh `Authorization: Bearer <jwt>` for every HTTP request. */
export function jwtAuthHeaders(secret: Uint8Array, clock: Clock): () => Promise<Record<string, string>> {
  if (secret.length !== 32) throw new CriticalError("JWT_SECRET", "JWT secret must be 32 bytes");
  return async () => ({ authorization: `Bearer ${await mintJwt(secret, nowSec(clock))}` });
}
