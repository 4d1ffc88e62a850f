/**
 * The head of an HTTP/1.x response as the lean client (post.ts) needs it: the status line and the three
 * header fields that frame the body — `content-length`, `transfer-encoding` and `connection`. Pure: text in, fields
 * out; the connection's state machine decides what they mean for the body and the socket.
 */

export interface ResponseHead {
  readonly status: number;
  /** The minor version: 0 or 1. */
  readonly minor: number;
  /** `content-length` as a number (NaN when it is not one); undefined when absent. */
  readonly length: number | undefined;
  /** Whether the last transfer coding is `chunked`. */
  readonly chunked: boolean;
  /** The `connection` field, lower case ("" when absent). */
  readonly connection: string;
}

/** The fields of `head` (status line and header lines, without the blank line); undefined for a bad status line. */
export function parseResponseHead(head: string): ResponseHead | undefined {
  // Status line: "HTTP/1.x NNN ...", read without a regular expression or splitting the head.
  const minor = head.charCodeAt(7) - 0x30;
  const status = digit(head, 9) * 100 + digit(head, 10) * 10 + digit(head, 11);
  if (!head.startsWith("HTTP/1.") || (minor !== 0 && minor !== 1) || head.charCodeAt(8) !== 0x20 || !(status >= 0))
    return undefined;
  let length: number | undefined;
  let chunked = false;
  let connection = "";
  let at = head.indexOf("\r\n");
  while (at >= 0) {
    const from = at + 2;
    at = head.indexOf("\r\n", from);
    // Only content-length, connection and transfer-encoding matter: other lines are skipped by the position of
    // their colon (RFC 9112 allows no whitespace between a field name and its colon), nothing else is copied.
    const c = head.indexOf(":", from) - from;
    if (c !== 14 && c !== 10 && c !== 17) continue;
    const end = at < 0 ? head.length : at;
    if (c + from > end) continue;
    const name = head.slice(from, from + c).toLowerCase();
    if (name !== "content-length" && name !== "transfer-encoding" && name !== "connection") continue;
    const value = head.slice(from + c + 1, end).trim();
    if (name === "content-length") length = Number(value);
    else if (name === "transfer-encoding") chunked = value.toLowerCase().split(",").pop()?.trim() === "chunked";
    else connection = value.toLowerCase();
  }
  return { status, minor, length, chunked, connection };
}

/** The decimal digit at `i` of `s`, or NaN. */
function digit(s: string, i: number): number {
  const d = s.charCodeAt(i) - 0x30;
  return d >= 0 && d <= 9 ? d : Number.NaN;
}
