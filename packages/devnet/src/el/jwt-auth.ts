import { createHmac, timingSafeEqual } from "node:crypto";

/** Maximum distance between a token's `iat` and the server clock (Engine API authentication: 60 s). */
export const JWT_IAT_WINDOW_SEC = 60;

export type JwtCheck = { ok: true } | { ok: false; reason: string };

function b64urlJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * Tokens already verified, with their `iat`. Clients mint one token per request, but within a second the token is
 * the same string, so a small cache saves most HMAC computations.
 */
const verified = new Map<string, { secret: Uint8Array; iat: number }>();
const VERIFIED_MAX = 1024;

/**
 * Verifies an `Authorization` header value as the Engine API requires: `Bearer <jwt>`, HS256 over the shared
 * 32-byte secret, with an integer `iat` claim within ±60 s of `nowSec`.
 */
export function verifyEngineJwt(authorization: string | undefined, secret: Uint8Array, nowSec: number): JwtCheck {
  if (authorization === undefined) return { ok: false, reason: "missing token" };
  const m = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (m === null) return { ok: false, reason: "missing token" };
  const token = m[1]!;
  const hit = verified.get(token);
  if (hit !== undefined && hit.secret === secret) {
    return Math.abs(hit.iat - nowSec) > JWT_IAT_WINDOW_SEC ? { ok: false, reason: "stale token" } : { ok: true };
  }
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "malformed token" };
  const [h, p, s] = parts as [string, string, string];
  const header = b64urlJson(h) as { alg?: unknown } | undefined;
  if (header === undefined || header.alg !== "HS256") return { ok: false, reason: "unsupported algorithm" };
  const expected = createHmac("sha256", secret).update(`${h}.${p}`).digest();
  const given = Buffer.from(s, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: "signature invalid" };
  const claims = b64urlJson(p) as { iat?: unknown } | undefined;
  if (claims === undefined || typeof claims.iat !== "number" || !Number.isInteger(claims.iat))
    return { ok: false, reason: "missing issued-at" };
  if (Math.abs(claims.iat - nowSec) > JWT_IAT_WINDOW_SEC) return { ok: false, reason: "stale token" };
  if (verified.size >= VERIFIED_MAX) verified.clear();
  verified.set(token, { secret, iat: claims.iat });
  return { ok: true };
}

/** Mints an Engine API token (`{iat}` only), e.g. for tests and standalone clients. */
export function mintEngineJwt(secret: Uint8Array, iatSec: number): string {
  const h = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");
  const p = Buffer.from(JSON.stringify({ iat: iatSec })).toString("base64url");
  const sig = createHmac("sha256", secret).update(`${h}.${p}`).digest("base64url");
  return `${h}.${p}.${sig}`;
}

/** Parses a JWT secret file's content: 32 bytes as hex, optional `0x`, surrounding whitespace ignored. */
export function parseJwtSecret(text: string): Uint8Array {
  const body = text.trim().replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]{64}$/.test(body)) throw new Error("JWT secret must be 32 bytes of hex");
  return Uint8Array.from(Buffer.from(body, "hex"));
}
