import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postHttp1 } from "../../../src/io/http1/post.js";

describe("postHttp1 (lean HTTP/1.1 POST)", () => {
  let server: Server;
  let url: string;
  const ports = new Set<number>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      ports.add(req.socket.remotePort ?? 0);
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const out = JSON.stringify({
          len: Number(req.headers["content-length"]),
          auth: req.headers.authorization,
          body,
        });
        // A TimeoutError (not this late reply) shows a client timer fired first: no wall-clock bound needed.
        if (req.url === "/slow") return void setTimeout(() => res.end("late"), 2_000);
        if (req.url === "/chunked") {
          // No content-length: node:http sends it chunked, in several writes.
          res.writeHead(200, { "content-type": "application/json" });
          for (let i = 0; i < out.length; i += 1000) res.write(out.slice(i, i + 1000));
          return void res.end();
        }
        if (req.url === "/close") res.setHeader("connection", "close");
        res.statusCode = req.headers.authorization === "Bearer ok" ? 200 : 401;
        res.setHeader("content-type", "application/json");
        res.end(out);
      });
    });
    server.keepAliveTimeout = 200;
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("sends body and headers, reads content-length and chunked bodies, and reuses one connection", async () => {
    const body = JSON.stringify({ s: "é".repeat(20_000) });
    ports.clear();
    for (const path of ["/", "/chunked", "/", "/chunked"]) {
      const r = await postHttp1(`${url}${path}`, body, { authorization: "Bearer ok" });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text)).toEqual({ len: Buffer.byteLength(body), auth: "Bearer ok", body });
    }
    const denied = await postHttp1(`${url}/`, "{}", {});
    expect(denied.status).toBe(401);
    // Two distinct URLs (two targets), one connection each.
    expect(ports.size).toBeLessThanOrEqual(2);
  });

  it("writes each request intact into the connection's reused buffer: longer, shorter, multi-byte, empty, in parts", async () => {
    ports.clear();
    const bodies = [
      JSON.stringify({ s: "a".repeat(30_000) }),
      "{}",
      JSON.stringify({ s: "€𝄞é".repeat(3_000) }),
      JSON.stringify({ s: "b".repeat(29_999) }),
      "",
      JSON.stringify({ s: "c".repeat(400_000) }), // past the kept buffer's bound: a buffer of its own
      JSON.stringify({ s: "d".repeat(10) }),
    ];
    for (const body of bodies) {
      const r = await postHttp1(`${url}/reuse`, body, { authorization: "Bearer ok" });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text)).toEqual({ len: Buffer.byteLength(body), auth: "Bearer ok", body });
    }
    // The same bodies given as parts (written one after the other; a part never ends inside a surrogate pair).
    const cut = (b: string, at: number): number => (/[\ud800-\udbff]/.test(b.charAt(at - 1)) ? at + 1 : at);
    const partsOf = (b: string): string[] => {
      const i = cut(b, 7);
      const j = cut(b, i + (b.length >> 1));
      return [b.slice(0, i), "", b.slice(i, j), b.slice(j)];
    };
    for (const parts of [...bodies.map(partsOf), ["€", "𝄞", "é"], [], [""]]) {
      const body = parts.join("");
      const r = await postHttp1(`${url}/reuse`, parts, { authorization: "Bearer ok" });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text)).toEqual({ len: Buffer.byteLength(body), auth: "Bearer ok", body });
    }
    expect(ports.size).toBe(1);
  });

  it("opens parallel connections for concurrent requests and honours connection: close", async () => {
    const rs = await Promise.all(
      Array.from({ length: 8 }, (_, i) => postHttp1(`${url}/`, JSON.stringify({ i }), { authorization: "Bearer ok" })),
    );
    for (const [i, r] of rs.entries()) expect(JSON.parse(JSON.parse(r.text).body)).toEqual({ i });
    for (let i = 0; i < 3; i++) {
      const r = await postHttp1(`${url}/close`, "{}", { authorization: "Bearer ok" });
      expect(r.status).toBe(200);
    }
  });

  it("survives the server closing an idle keep-alive connection", async () => {
    expect((await postHttp1(`${url}/`, "{}", { authorization: "Bearer ok" })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 600)); // past the server's keep-alive timeout
    expect((await postHttp1(`${url}/`, "{}", { authorization: "Bearer ok" })).status).toBe(200);
  });

  it("times out, aborts, and reports refused connections", async () => {
    await expect(postHttp1(`${url}/slow`, "{}", {}, undefined, 100)).rejects.toMatchObject({ name: "TimeoutError" });
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error("stop")), 50);
    await expect(postHttp1(`${url}/slow`, "{}", {}, stop.signal)).rejects.toThrow("stop");
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(postHttp1(`http://127.0.0.1:${port}/`, "{}", {})).rejects.toMatchObject({ code: "ECONNREFUSED" });
    expect((await postHttp1(`${url}/`, "{}", { authorization: "Bearer ok" })).status).toBe(200);
  });

  it("times each request out at its own deadline (one timer per target) while the others complete", async () => {
    const t0 = performance.now();
    const first = postHttp1(`${url}/slow`, "{}", {}, undefined, 150).then(
      () => Number.NaN,
      (err: Error) => (err.name === "TimeoutError" ? performance.now() - t0 : Number.NaN),
    );
    await new Promise((r) => setTimeout(r, 100));
    const t1 = performance.now();
    const second = postHttp1(`${url}/slow`, "{}", {}, undefined, 150).then(
      () => Number.NaN,
      (err: Error) => (err.name === "TimeoutError" ? performance.now() - t1 : Number.NaN),
    );
    const fast = await postHttp1(`${url}/`, "{}", { authorization: "Bearer ok" }, undefined, 150);
    expect(fast.status).toBe(200);
    // Each timed out, and none before its own deadline (the timer armed for the first one re-arms for the second).
    expect(await first).toBeGreaterThanOrEqual(149);
    expect(await second).toBeGreaterThanOrEqual(149);
    // A request without a timeout is not failed by another one's timer.
    const stop = new AbortController();
    const unbounded = postHttp1(`${url}/slow`, "{}", {}, stop.signal);
    await expect(postHttp1(`${url}/slow`, "{}", {}, undefined, 50)).rejects.toMatchObject({ name: "TimeoutError" });
    stop.abort(new Error("stop"));
    await expect(unbounded).rejects.toThrow("stop");
    expect((await postHttp1(`${url}/`, "{}", { authorization: "Bearer ok" }, undefined, 150)).status).toBe(200);
  });

  it("reuses the header lines of a headers object, and uses a new object's", async () => {
    const ok = Object.freeze({ authorization: "Bearer ok" });
    for (let i = 0; i < 3; i++) expect(JSON.parse((await postHttp1(`${url}/`, "{}", ok)).text).auth).toBe("Bearer ok");
    const other = await postHttp1(`${url}/`, "{}", { authorization: "Bearer other" });
    expect(other.status).toBe(401);
    expect(JSON.parse(other.text).auth).toBe("Bearer other");
    expect((await postHttp1(`${url}/`, "{}", ok)).status).toBe(200);
  });

  it("reads a body delimited by the connection close, skips interim responses, joins pieces, and rejects a truncated one", async () => {
    let mode = "close-delimited";
    const raw: TcpServer = createTcpServer((s) => {
      s.once("data", () => {
        if (mode === "close-delimited") s.end("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end");
        else if (mode === "interim")
          s.end("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        else if (mode === "pieces") {
          // Head and body cut across reads (the client reads into one reused buffer: what it keeps is copied).
          const parts = ["HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Le", "ngth: 12\r\n\r\nhello", " world", "!"];
          const next = () => {
            const p = parts.shift();
            if (p === undefined) return void s.end();
            s.write(p);
            setTimeout(next, 20);
          };
          next();
        } else s.end("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort");
      });
    });
    await new Promise<void>((r) => raw.listen(0, "127.0.0.1", r));
    const rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`;
    try {
      expect(await postHttp1(rawUrl, "{}", {})).toEqual({ status: 200, text: "until the end" });
      mode = "pieces";
      expect(await postHttp1(rawUrl, "{}", {})).toEqual({ status: 200, text: "hello world!" });
      mode = "interim";
      expect(await postHttp1(rawUrl, "{}", {})).toEqual({ status: 200, text: "ok" });
      mode = "truncated";
      await expect(postHttp1(rawUrl, "{}", {})).rejects.toThrow();
    } finally {
      await new Promise((r) => raw.close(r));
    }
  });

  it("refuses header values that would break the request", async () => {
    await expect(postHttp1(`${url}/`, "{}", { authorization: "Bearer ok\r\nX-Evil: 1" })).rejects.toThrow(TypeError);
  });

  it("more concurrent requests than connections: the later ones wait for a free connection, each answered once", async () => {
    ports.clear();
    // The server's short keep-alive (200 ms, for the idle-socket tests) would race the reuse of an idle socket on a
    // loaded machine: a socket the server closes just as a request goes out fails that request, as with any client.
    server.keepAliveTimeout = 10_000;
    const n = 40; // > 16 sockets per target: requests wait for a connection and then take an idle one
    const rs = await Promise.all(
      Array.from({ length: n }, (_, i) => postHttp1(`${url}/`, JSON.stringify({ i }), { authorization: "Bearer ok" })),
    ).finally(() => {
      server.keepAliveTimeout = 200;
    });
    for (const [i, r] of rs.entries()) expect(JSON.parse(JSON.parse(r.text).body)).toEqual({ i });
    expect(ports.size).toBeLessThanOrEqual(16);
  });

  it("fails with a rejected promise, never a throw: aborted signal, bad URL, bad header", () => {
    const stop = new AbortController();
    stop.abort(new Error("stopped before"));
    const calls = [
      () => postHttp1(`${url}/`, "{}", {}, stop.signal),
      () => postHttp1("not a url", "{}", {}),
      () => postHttp1(`${url}/`, "{}", { "x-bad": "a\nb" }),
    ];
    return Promise.all(
      calls.map((call) => {
        let p: Promise<unknown> | undefined;
        expect(() => {
          p = call();
        }).not.toThrow();
        return expect(p).rejects.toBeInstanceOf(Error);
      }),
    );
  });
});
