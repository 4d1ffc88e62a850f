import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postHttp1 } from "../../../src/io/http1/post.js";

/**
 * The lean HTTP/1.1 client's response parser, fuzzed through a real loopback socket: a raw TCP server answers each
 * request with a generated response — content-length or chunked framing (random chunk sizes, chunk extensions,
 * trailers), interim 100 responses, extra header lines in any case — written in random pieces. The client must
 * return exactly the status and the body, and keep using the connection.
 */
interface Planned {
  readonly bytes: Buffer;
  readonly pieces: readonly number[];
}

const plans: Planned[] = [];
let server: Server;
let url: string;
const sockets = new Set<Socket>();

/** Writes `bytes` in pieces of the given sizes (the rest in one), each on its own turn of the event loop. */
async function writeInPieces(sock: Socket, bytes: Buffer, pieces: readonly number[]): Promise<void> {
  let at = 0;
  for (const n of pieces) {
    if (at >= bytes.length) break;
    sock.write(bytes.subarray(at, at + n));
    at += n;
    await new Promise((r) => setImmediate(r));
  }
  if (at < bytes.length) sock.write(bytes.subarray(at));
}

beforeAll(async () => {
  server = createServer((sock) => {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    let pending = Buffer.alloc(0);
    sock.on("data", (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      for (;;) {
        const end = pending.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = pending.toString("latin1", 0, end);
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        pending = pending.subarray(end + 4 + length);
        const plan = plans.shift();
        if (plan === undefined) return void sock.destroy();
        void writeInPieces(sock, plan.bytes, plan.pieces);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy(); // the client's kept-alive connection
  await new Promise((r) => server.close(r));
});

/** A random header name's case: the parser must not care. */
const anyCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((up) => [...name].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(""));

const response = fc.record({
  status: fc.constantFrom(200, 201, 400, 401, 404, 500, 503),
  body: fc.string({ unit: "grapheme", maxLength: 3000 }),
  chunked: fc.boolean(),
  chunkSizes: fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 8 }),
  extension: fc.boolean(),
  trailer: fc.boolean(),
  interim: fc.boolean(),
  extra: fc.array(
    fc.tuple(fc.constantFrom("x-a", "date", "content-type", "server"), fc.stringMatching(/^[ -~]{0,20}$/)),
    {
      maxLength: 4,
    },
  ),
  lengthName: anyCase("content-length"),
  encodingName: anyCase("transfer-encoding"),
  pieces: fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 12 }),
});

type Response = typeof response extends fc.Arbitrary<infer T> ? T : never;

/** The response's bytes as a server would write them. */
function render(r: Response): Buffer {
  const body = Buffer.from(r.body, "utf8");
  const lines = [`HTTP/1.1 ${r.status} Reason`];
  for (const [k, v] of r.extra) lines.push(`${k}: ${v.trim()}`);
  const parts: Buffer[] = [];
  if (r.interim) parts.push(Buffer.from("HTTP/1.1 100 Continue\r\n\r\n", "latin1"));
  if (!r.chunked) {
    lines.push(`${r.lengthName}: ${body.length}`);
    parts.push(Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), body);
    return Buffer.concat(parts);
  }
  lines.push(`${r.encodingName}: chunked`);
  parts.push(Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"));
  let at = 0;
  for (let i = 0; at < body.length; i++) {
    const n = Math.min(r.chunkSizes[i % r.chunkSizes.length]!, body.length - at);
    const ext = r.extension ? ";name=value" : "";
    parts.push(Buffer.from(`${n.toString(16)}${ext}\r\n`, "latin1"), body.subarray(at, at + n), Buffer.from("\r\n"));
    at += n;
  }
  parts.push(Buffer.from(`0\r\n${r.trailer ? "x-trailer: 1\r\n" : ""}\r\n`, "latin1"));
  return Buffer.concat(parts);
}

describe("postHttp1's response parser (property)", () => {
  it("returns exactly the status and body of any framing, written in any pieces, on a kept-alive connection", async () => {
    await fc.assert(
      fc.asyncProperty(response, async (r) => {
        plans.push({ bytes: render(r), pieces: r.pieces });
        const res = await postHttp1(url, "{}", { "content-type": "application/json" }, undefined, 5_000);
        expect(res.status).toBe(r.status);
        expect(res.text).toBe(r.body);
      }),
      { numRuns: 150 },
    );
    expect(plans).toEqual([]);
  });
});
