import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postText } from "../../../src/io/json-rpc/http-post.js";

describe("postText (keep-alive POST)", () => {
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
        // A TimeoutError (not this late reply) shows a client timer fired first: no wall-clock bound needed.
        if (req.url === "/slow") return void setTimeout(() => res.end("late"), 2_000);
        res.statusCode = req.headers.authorization === "Bearer ok" ? 200 : 401;
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ len: Number(req.headers["content-length"]), body }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("sends the body and headers, returns status and text, and reuses the connection", async () => {
    const body = JSON.stringify({ s: "é".repeat(10_000) });
    ports.clear();
    for (let i = 0; i < 5; i++) {
      const r = await postText(`${url}/`, body, { authorization: "Bearer ok", "content-type": "application/json" });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text)).toEqual({ len: Buffer.byteLength(body), body });
    }
    expect(ports.size).toBe(1);
    const denied = await postText(`${url}/`, "{}", {});
    expect(denied.status).toBe(401);
  });

  it("rejects with the signal's reason when aborted, and with the network error when refused", async () => {
    const signal = AbortSignal.timeout(100);
    await expect(postText(`${url}/slow`, "{}", {}, signal)).rejects.toMatchObject({ name: "TimeoutError" });
    const done = new AbortController();
    done.abort(new Error("stop"));
    await expect(postText(`${url}/`, "{}", {}, done.signal)).rejects.toThrow("stop");
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(postText(`http://127.0.0.1:${port}/`, "{}", {})).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("rejects with a TimeoutError after timeoutMs, and a later request on the same target still succeeds", async () => {
    await expect(postText(`${url}/slow`, "{}", {}, undefined, 100)).rejects.toMatchObject({ name: "TimeoutError" });
    const r = await postText(`${url}/`, "{}", { authorization: "Bearer ok" }, undefined, 5_000);
    expect(r.status).toBe(200);
  });
});
