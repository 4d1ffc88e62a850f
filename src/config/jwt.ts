import { readFileSync } from "node:fs";
import { looksLikeSecret, REDACTED } from "../observability/log-redact.js";

/**
 * Reads a JWT secret file: 32 bytes as 64 hex digits, optional `0x` prefix, surrounding whitespace allowed.
 * Throws an Error with an operator-facing message (never containing the secret).
 */
export function readJwtSecret(path: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (looksLikeSecret(path)) {
      // The secret itself was given where its file is expected: never echo it.
      throw new Error(
        `the value (${REDACTED}) looks like a JWT secret, not a file path; write the secret to a file and pass its path`,
      );
    }
    throw new Error(
      code === "ENOENT"
        ? `JWT secret file ${path} does not exist`
        : `cannot read JWT secret file ${path}: ${code ?? String(e)}`,
    );
  }
  return parseJwtSecret(text, looksLikeSecret(path) ? REDACTED : path);
}

/** Parses JWT secret text (see `readJwtSecret`). */
export function parseJwtSecret(text: string, path = "JWT secret"): Uint8Array {
  let hex = text.trim();
  if (hex.startsWith("0x") || hex.startsWith("0X")) hex = hex.slice(2);
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new Error(`JWT secret file ${path} must hold 32 bytes as 64 hex digits (optionally 0x-prefixed)`);
  }
  return Uint8Array.from(Buffer.from(hex, "hex"));
}
