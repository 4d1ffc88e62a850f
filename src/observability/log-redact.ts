/** Keys whose values are never logged (matched case-insensitively anywhere in the key). */
const SECRET_KEY_RE =
  /secret|password|passwd|authorization|private[-_]?key|priv\.raw|privraw|sequencer[-_.]?key|sequencerkey/i;

export const REDACTED = "[redacted]";

/**
 * Whether a field name denotes a secret (`jwtSecret`, `l2.jwt-secret`, `password`, `Authorization`, …).
 * Names ending in `path` (`jwtSecretPath`) name a file, not its content, and are not secret.
 */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY_RE.test(key) && !/path$/i.test(key);
}

const SECRET_LIKE_RE = /^(?:0[xX])?[0-9a-fA-F]{64}$/;
const SECRET_LIKE_IN_TEXT_RE = /(?<![0-9a-zA-Z])(?:0[xX])?[0-9a-fA-F]{64}(?![0-9a-zA-Z])/g;

/**
 * Whether a value looks like key material: 32 bytes as 64 hex digits, optionally `0x`-prefixed (a JWT secret or a
 * private key), e.g. given by mistake where a file path is expected (`--vn.all.l2.jwt-secret 0x…`).
 */
export function looksLikeSecret(value: string): boolean {
  return SECRET_LIKE_RE.test(value.trim());
}

/** Free text with every token that looks like a secret (see `looksLikeSecret`) replaced by `[redacted]`. */
export function redactSecretLike(text: string): string {
  return text.replace(SECRET_LIKE_IN_TEXT_RE, REDACTED);
}

/** Names of values that hold a file path to key material or key material itself (`jwtSecretPath`, `l2.jwt-secret`). */
const KEY_MATERIAL_NAME_RE = /jwt|secret|key|priv/i;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Returns a log-safe copy of `value`: secret-named keys, and key-material-named ones (`jwtSecretPath`) whose value
 * looks like a secret, are replaced by `[redacted]`, bigints become decimal
 * strings, byte arrays become `0x` hex, Sets and Maps become arrays and objects. Errors and other class
 * instances are kept as they are (pino serialises them). Recursion is bounded.
 */
export function sanitizeForLog(value: unknown, depth = 0): unknown {
  if (typeof value === "bigint") return value.toString(10);
  if (depth > 8 || typeof value !== "object" || value === null) return value;
  if (value instanceof Uint8Array) return `0x${Buffer.from(value).toString("hex")}`;
  if (Array.isArray(value)) return value.map((v) => sanitizeForLog(v, depth + 1));
  if (value instanceof Set) return [...value].map((v) => sanitizeForLog(v, depth + 1));
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = isSecretKey(String(k)) ? REDACTED : sanitizeForLog(v, depth + 1);
    return out;
  }
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const secret =
      (isSecretKey(k) && v !== undefined && v !== "") ||
      (typeof v === "string" && KEY_MATERIAL_NAME_RE.test(k) && looksLikeSecret(v));
    out[k] = secret ? REDACTED : sanitizeForLog(v, depth + 1);
  }
  return out;
}
