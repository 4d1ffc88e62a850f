// What the floor control's two processes (floor-client.mjs, floor-peer.mjs) share: their arguments and HTTP/1.1
// messages of an exact size. Plain JavaScript: both run without tsx.

/** The non-negative number after `--name` on the command line; `who` names the program in the error. */
export function numberArg(who, name) {
  const i = process.argv.indexOf(name);
  const v = i < 0 ? Number.NaN : Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${who}: ${name} <non-negative number> is required`);
  return v;
}

/**
 * An HTTP/1.1 message of exactly `total` bytes: `head` (its start line and header lines, ending with
 * "content-length: "), the body's length, a blank line, then the body of `fill` bytes.
 */
export function messageOf(who, head, total, fill) {
  for (let digits = 1; digits < 16; digits++) {
    const body = total - head.length - 4 - digits;
    if (body >= 0 && String(body).length === digits)
      return Buffer.concat([Buffer.from(`${head}${body}\r\n\r\n`, "latin1"), Buffer.alloc(body, fill)]);
  }
  throw new Error(`${who}: no HTTP message of ${total} bytes`);
}
