/**
 * A remote signer for tests, in the way op-signer answers op-node: JSON-RPC over HTTP or HTTPS (mutual TLS when
 * given a CA: client certificates are required and checked) on 127.0.0.1, port 0. `opsigner_signBlockPayload`
 * takes the V1 arguments, computes keccak256(domain ‖ uint256(chainId) ‖ payloadHash) itself (viem, independent of
 * the code under test) and signs it with its key; `health_status` answers a version. Every request is recorded
 * (method, params, headers, the client certificate's CN). `mode` switches to a JSON-RPC error or a short result.
 */
import { readFileSync } from "node:fs";
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttps } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { concat, keccak256, numberToHex, pad, serializeSignature, toHex, type Hex } from "viem";
import { sign } from "viem/accounts";

export interface SignerRequest {
  readonly method: string;
  readonly params: unknown[];
  readonly headers: IncomingMessage["headers"];
  readonly clientCN?: string | undefined;
}

export interface TestSignerServer {
  readonly url: string;
  readonly requests: SignerRequest[];
  mode: "sign" | "error" | "short";
  close(): Promise<void>;
}

export async function startTestSigner(opts: {
  key: Hex;
  tls?: { ca: string; cert: string; key: string };
  port?: number;
}): Promise<TestSignerServer> {
  const requests: SignerRequest[] = [];
  const state = { mode: "sign" as TestSignerServer["mode"] };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void answer(Buffer.concat(chunks).toString("utf8"), req).then((body) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      });
    });
  };
  const answer = async (text: string, req: IncomingMessage) => {
    const call = JSON.parse(text) as { id: number; method: string; params: unknown[] };
    const peer = (req.socket as TLSSocket).getPeerCertificate?.();
    const cn = peer?.subject?.CN;
    requests.push({
      method: call.method,
      params: call.params,
      headers: req.headers,
      clientCN: Array.isArray(cn) ? cn[0] : cn,
    });
    if (call.method === "health_status") return { jsonrpc: "2.0", id: call.id, result: "v1.0.0-test" };
    if (call.method !== "opsigner_signBlockPayload")
      return { jsonrpc: "2.0", id: call.id, error: { code: -32601, message: "method not found" } };
    if (state.mode === "error")
      return { jsonrpc: "2.0", id: call.id, error: { code: -32000, message: "client not authorized" } };
    const a = call.params[0] as { domain: number[]; chainId: number; payloadHash: string };
    const msg = concat([
      toHex(Uint8Array.from(a.domain)),
      pad(numberToHex(BigInt(a.chainId)), { size: 32 }),
      toHex(Buffer.from(a.payloadHash, "base64")),
    ]);
    const sig = await sign({ hash: keccak256(msg), privateKey: opts.key });
    // r ‖ s ‖ v with v ∈ {0, 1}, as op-signer returns it.
    const hex = `${serializeSignature({ r: sig.r, s: sig.s, yParity: sig.yParity ?? 0 }).slice(0, 130)}0${sig.yParity ?? 0}`;
    return { jsonrpc: "2.0", id: call.id, result: state.mode === "short" ? hex.slice(0, 66) : hex };
  };
  const server: Server = opts.tls
    ? createHttps(
        {
          ca: readFileSync(opts.tls.ca),
          cert: readFileSync(opts.tls.cert),
          key: readFileSync(opts.tls.key),
          requestCert: true,
          rejectUnauthorized: true,
        },
        handler,
      )
    : createHttp(handler);
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${opts.tls ? "https" : "http"}://127.0.0.1:${port}`,
    requests,
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
