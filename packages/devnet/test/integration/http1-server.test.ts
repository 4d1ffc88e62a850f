import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenHttp1 } from "../../src/el/http1-server.js";

/** Sends raw bytes on a fresh connection and collects everything until the server closes or `until` matches. */
function raw(port: number, data: string[], until: (s: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1");
    let out = "";
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`timeout; got ${out}`));
    }, 5_000);
    const finish = () => {
      clearTimeout(timer);
      s.destroy();
      resolve(out);
    };
    s.on("data", (d) => {
      out += d.toString("utf8");
      if (until(out)) finish();
    });
    s.on("close", finish);
    s.on("error", reject);
    s.on("connect", async () => {
      for (const d of data) {
        s.write(d);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
  });
}

describe("lean HTTP/1.1 server (simulated EL)", () => {
  let port: number;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const srv = await listenHttp1(
      "127.0.0.1",
      0,
      async (req) => {
        if (req.path === "/boom") throw new Error("boom");
        await new Promise((r) => setTimeout(r, req.body === "slow" ? 50 : 0));
        return {
          status: 200,
          contentType: "text/plain",
          body: `${req.method} ${req.path} ${req.headers["x-n"] ?? "-"} [${req.body}]`,
        };
      },
      1024,
    );
    port = srv.port;
    close = srv.close;
  });
  afterAll(async () => close());

  it("answers fetch with keep-alive, and reads a chunked request body", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`http://127.0.0.1:${port}/x`, {
        method: "POST",
        body: `héllo ${i}`,
        headers: { "x-n": `${i}` },
      });
      expect(r.status).toBe(200);
      expect(await r.text()).toBe(`POST /x ${i} [héllo ${i}]`);
    }
    const chunked = await raw(
      port,
      [
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
        "lo\r\n6;ext=1\r\n world\r\n0\r\n\r\n",
      ],
      (s) => s.includes("]"),
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(chunked).toContain("POST / - [hello world]");
  });

  it("answers pipelined requests in order, honours connection: close and expect: 100-continue", async () => {
    const two =
      "POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nslowPOST /b HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nConnection: close\r\n\r\nq";
    const out = await raw(port, [two], () => false);
    expect(out.indexOf("[slow]")).toBeGreaterThan(0);
    expect(out.indexOf("[q]")).toBeGreaterThan(out.indexOf("[slow]"));
    expect(out).toContain("Connection: close");
    const cont = await raw(
      port,
      ["POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", "ok"],
      (s) => s.includes("[ok]"),
    );
    expect(cont).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/);
  });

  it("refuses oversized and malformed requests, and reports handler errors as 500", async () => {
    const big = await raw(port, ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5000\r\n\r\n"], () => false);
    expect(big).toMatch(/^HTTP\/1\.1 413 /);
    const bad = await raw(port, ["NONSENSE\r\n\r\n"], () => false);
    expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    const boom = await fetch(`http://127.0.0.1:${port}/boom`, { method: "POST", body: "" });
    expect(boom.status).toBe(500);
    expect(await boom.text()).toContain("boom");
  });
});
