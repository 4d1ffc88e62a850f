import { createHmac } from "node:crypto";
import { readFile } from "node:fs/promises";
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

const JWT_HEADER_B64 = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

/** An HS256 token whose only claim is `iat`, signed synchronously (node:crypto HMAC, no WebCrypto round trip). */
export function mintJwtSync(secret: Uint8Array, iatSec: number): string {
  const payload = Buffer.from(JSON.stringify({ iat: iatSec })).toString("base64url");
  const signingInput = `${JWT_HEADER_B64}.${payload}`;
  return `${signingInput}.${createHmac("sha256", secret).update(signingInput).digest("base64url")}`;
}

/** An HS256 token whose only claim is `iat` (the EL accepts ±60 s around its clock). */
export async function mintJwt(secret: Uint8Array, iatSec: number): Promise<string> {
  return mintJwtSync(secret, iatSec);
}

/**
 * A headers provider for HttpRpcClient: `Authorization: Bearer <jwt>` whose `iat` is the current second of the
 * clock, synchronously (no promise per request). The token is minted once per second and reused for the requests
 * within that second (it is the same token a fresh mint would give), so every request still carries the current
 * `iat` (the EL accepts ±60 s). Within the second the very same frozen object is returned, so that the transport
 * reuses the header lines it built from it.
 */
export function jwtAuthHeaders(secret: Uint8Array, clock: Clock): () => Readonly<Record<string, string>> {
  if (secret.length !== 32) throw new CriticalError("JWT_SECRET", "JWT secret must be 32 bytes");
  const key = Uint8Array.from(secret);
  let iat = Number.NaN;
  let headers: Readonly<Record<string, string>> = {};
  return () => {
    const now = nowSec(clock);
    if (now !== iat) {
      iat = now;
      headers = Object.freeze({ authorization: `Bearer ${mintJwtSync(key, now)}` });
    }
    return headers;
  };
}
