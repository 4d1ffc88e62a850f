/**
 * The remote-signer client against a real op-signer-like server on 127.0.0.1 (test/support/remote-signer-server.ts):
 * the V1 arguments as op-node sends them, headers, the returned signature, typed errors for a signer that is down,
 * refuses or answers garbage, and mutual TLS with certificates made by openssl for the test.
 */
import { copyFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Hex, keccak256, recoverAddress, toHex } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { RemoteBlockSigner, SignerError } from "../../../../src/io/signer/remote-signer.js";
import { signingHashOfPayloadHash } from "../../../../src/protocol/p2p/signing.js";
import { startTestSigner, type TestSignerServer } from "../../../support/remote-signer-server.js";
import { describeWithTools } from "../../../support/system-tools.js";
import { makeTestPki, type TestPki } from "../../../support/tls-certs.js";

const KEY: Hex = `0x${"42".repeat(32)}`;
const ADDRESS = privateKeyToAddress(KEY);
const PAYLOAD_HASH = keccak256(toHex("a block"), "bytes");

const servers: TestSignerServer[] = [];
const signers: RemoteBlockSigner[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const s of signers) s.close();
  await Promise.allSettled(servers.map((s) => s.close()));
  await Promise.allSettled(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function server(opts: Parameters<typeof startTestSigner>[0]): Promise<TestSignerServer> {
  const s = await startTestSigner(opts);
  servers.push(s);
  return s;
}
function client(opts: ConstructorParameters<typeof RemoteBlockSigner>[0]): RemoteBlockSigner {
  const c = new RemoteBlockSigner(opts);
  signers.push(c);
  return c;
}
async function failure(p: Promise<unknown>): Promise<SignerError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SignerError);
  return err as SignerError;
}

describe("RemoteBlockSigner (plain HTTP)", () => {
  it("sends op-node's V1 arguments and headers and returns the 65-byte signature", async () => {
    const s = await server({ key: KEY });
    const c = client({
      endpoint: s.url,
      address: ADDRESS,
      headers: { authorization: "Bearer t0ken", "x-team": "seq" },
    });
    expect(await c.health()).toBe("v1.0.0-test");
    const sig = await c.sign(901n, PAYLOAD_HASH);
    expect(sig.length).toBe(65);
    expect([0, 1]).toContain(sig[64]);
    const req = s.requests.find((r) => r.method === "opsigner_signBlockPayload");
    expect(req?.params).toEqual([
      {
        domain: new Array(32).fill(0),
        chainId: 901,
        payloadHash: Buffer.from(PAYLOAD_HASH).toString("base64"),
        senderAddress: ADDRESS.toLowerCase(),
      },
    ]);
    expect(req?.headers.authorization).toBe("Bearer t0ken");
    expect(req?.headers["x-team"]).toBe("seq");
    // The signature is over keccak256(domain ‖ chainId ‖ payloadHash) and recovers to the signer's address.
    const who = await recoverAddress({
      hash: toHex(signingHashOfPayloadHash(901n, PAYLOAD_HASH)),
      signature: toHex(sig),
    });
    expect(who).toBe(ADDRESS);
  });

  it("types failures: down → temporary, refusal and a short result → critical; messages carry no credentials", async () => {
    const s = await server({ key: KEY });
    const url = new URL(s.url);
    url.username = "user";
    url.password = "hunter2";
    const c = client({ endpoint: url.toString(), address: ADDRESS });
    s.mode = "error";
    const refused = await failure(c.sign(901n, PAYLOAD_HASH));
    expect([refused.failure, refused.severity, refused.code]).toEqual(["rejected", "critical", "SIGNER_REJECTED"]);
    expect(refused.message).toContain("client not authorized");
    s.mode = "short";
    const short = await failure(c.sign(901n, PAYLOAD_HASH));
    expect([short.failure, short.severity]).toEqual(["bad_response", "critical"]);
    expect(short.message).toContain("32 bytes");
    await s.close();
    const down = await failure(c.sign(901n, PAYLOAD_HASH));
    expect([down.failure, down.severity, down.code]).toEqual(["unavailable", "temporary", "SIGNER_UNAVAILABLE"]);
    for (const e of [refused, short, down]) expect(e.message).not.toContain("hunter2");
  });
});

describeWithTools(["openssl"], "RemoteBlockSigner over mutual TLS", ({ openssl }) => {
  let pki: TestPki;
  it("signs through TLS with the client certificate; a certificate of another CA or none is refused", async () => {
    pki = makeTestPki(openssl);
    dirs.push(pki.dir);
    const s = await server({ key: KEY, tls: { ca: pki.ca, cert: pki.serverCert, key: pki.serverKey } });
    expect(s.url).toMatch(/^https:/);
    const c = client({
      endpoint: s.url,
      address: ADDRESS,
      headers: { "x-api-key": "k" },
      tls: { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey },
    });
    const sig = await c.sign(10n, PAYLOAD_HASH);
    expect(sig.length).toBe(65);
    const req = s.requests.find((r) => r.method === "opsigner_signBlockPayload");
    expect(req?.clientCN).toBe("supernode");
    expect(req?.headers["x-api-key"]).toBe("k");

    const stranger = client({
      endpoint: s.url,
      address: ADDRESS,
      tls: { ca: pki.ca, cert: pki.strangerCert, key: pki.strangerKey },
    });
    expect((await failure(stranger.sign(10n, PAYLOAD_HASH))).failure).toBe("unavailable");
    // Without the CA the server's certificate is not trusted.
    const noTls = client({ endpoint: s.url, address: ADDRESS });
    expect((await failure(noTls.sign(10n, PAYLOAD_HASH))).failure).toBe("unavailable");
    expect(s.requests.filter((r) => r.method === "opsigner_signBlockPayload")).toHaveLength(1);
  });

  it("picks up a renewed client certificate from its files (as op-service's certman)", async () => {
    const s = await server({ key: KEY, tls: { ca: pki.ca, cert: pki.serverCert, key: pki.serverKey } });
    const cert = join(pki.dir, "live.crt");
    const key = join(pki.dir, "live.key");
    await copyFile(pki.clientCert, cert);
    await copyFile(pki.clientKey, key);
    const c = client({ endpoint: s.url, address: ADDRESS, tls: { ca: pki.ca, cert, key }, tlsReloadCheckMs: 0 });
    await c.sign(10n, PAYLOAD_HASH);
    // Half-renewed (new certificate, old key): the old pair stays in use.
    await copyFile(pki.client2Cert, cert);
    await c.sign(10n, PAYLOAD_HASH);
    await copyFile(pki.client2Key, key);
    await c.sign(10n, PAYLOAD_HASH);
    const cns = s.requests.filter((r) => r.method === "opsigner_signBlockPayload").map((r) => r.clientCN);
    expect(cns).toEqual(["supernode", "supernode", "supernode-2"]);
  });
});
