/**
 * `signer.*` (the remote block signer) at startup: what makes the configuration invalid (endpoint and address
 * together, their forms, `k=v` headers, readable and matching TLS files with `signer.tls.enabled`, not together
 * with `p2p.sequencer.key`), the resolved `P2pConfig.remoteSigner`, and that `supernode config` hides header values.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { effectiveConfigJson } from "../../../src/config/effective.js";
import type { ConfigIssue } from "../../../src/config/issues.js";
import { loadConfig } from "../../../src/config/load.js";
import type { SupernodeConfig } from "../../../src/config/types.js";
import { describeWithTools } from "../../support/system-tools.js";
import { makeTestPki, type TestPki } from "../../support/tls-certs.js";
import { baseArgs, type Fixture, makeFixture } from "./helpers.js";

let f: Fixture;
beforeAll(() => {
  f = makeFixture();
});
afterAll(() => f.cleanup());

const ADDR = "0x00000000000000000000000000000000000000Ab";

function load(extra: string[]): { config?: SupernodeConfig; issues: readonly ConfigIssue[]; warnings: string[] } {
  const res = loadConfig([...baseArgs(f, [901]), ...extra], {});
  return res.ok
    ? { config: res.config, issues: [], warnings: res.warnings.map((w) => w.msg) }
    : { issues: res.issues, warnings: [] };
}
const messages = (issues: readonly ConfigIssue[]) => issues.map((i) => `${i.option}: ${i.message}`);

describe("signer.* configuration", () => {
  it("rejects an endpoint without an address, an address without an endpoint, bad forms and bad headers", () => {
    expect(
      messages(load(["--vn.901.signer.endpoint", "http://127.0.0.1:8000", "--vn.901.signer.tls.enabled=false"]).issues),
    ).toEqual(["--vn.901.signer.address: required with signer.endpoint: the address the signer signs with"]);
    expect(messages(load(["--vn.901.signer.address", ADDR]).issues)).toEqual([
      "--vn.901.signer.address: needs signer.endpoint (endpoint and address are set together)",
    ]);
    const bad = load([
      "--vn.901.signer.endpoint",
      "ftp://127.0.0.1/x",
      "--vn.901.signer.address",
      "0x1234",
      "--vn.901.signer.header",
      "novalue",
      "--vn.901.signer.tls.enabled=false",
    ]).issues;
    expect(messages(bad)).toEqual([
      "--vn.901.signer.endpoint: must be an http(s) URL",
      "--vn.901.signer.address: must be a 20-byte hex address (0x + 40)",
      '--vn.901.signer.header: expected key=value with a valid header name (got "")',
    ]);
  });

  it("with signer.tls.enabled (the default) the CA, certificate and key files must be readable", () => {
    const res = load(["--vn.all.signer.endpoint", "https://127.0.0.1:8000", "--vn.all.signer.address", ADDR]);
    const m = messages(res.issues);
    expect(m).toHaveLength(3);
    expect(m[0]).toMatch(/^--vn\.901\.signer\.tls\.ca: cannot read \/.*tls\/ca\.crt: ENOENT$/);
    expect(m[1]).toMatch(/^--vn\.901\.signer\.tls\.cert: cannot read .*tls\/tls\.crt: ENOENT$/);
    expect(m[2]).toMatch(/^--vn\.901\.signer\.tls\.key: cannot read .*tls\/tls\.key: ENOENT$/);
  });

  it("is rejected together with p2p.sequencer.key", () => {
    const res = load([
      "--vn.901.signer.endpoint",
      "http://127.0.0.1:8000",
      "--vn.901.signer.address",
      ADDR,
      "--vn.901.signer.tls.enabled=false",
      "--vn.901.p2p.sequencer.key",
      "11".repeat(32),
    ]);
    expect(messages(res.issues)).toEqual(["--vn.901.p2p.sequencer.key: cannot be combined with signer.endpoint"]);
  });

  it("resolves to P2pConfig.remoteSigner (plain HTTP); `supernode config` shows header names only", () => {
    const res = load([
      "--vn.901.signer.endpoint",
      "http://user:pw@127.0.0.1:8000",
      "--vn.901.signer.address",
      ADDR,
      "--vn.901.signer.header",
      "Authorization=Bearer s3cret",
      "--vn.901.signer.header",
      "X-Team=a=b",
      "--vn.901.signer.tls.enabled=false",
    ]);
    expect(res.issues).toEqual([]);
    const c = res.config?.chainConfigs[0];
    expect(c?.p2p.remoteSigner).toEqual({
      endpoint: "http://user:pw@127.0.0.1:8000",
      address: ADDR.toLowerCase(),
      headers: { authorization: "Bearer s3cret", "x-team": "a=b" },
    });
    const text = JSON.stringify(effectiveConfigJson(res.config as SupernodeConfig));
    expect(text).not.toContain("s3cret");
    expect(text).not.toContain(":pw@");
    expect(text).toContain("Authorization=[redacted]");
  });

  it("warns that the signer has no effect when P2P is off", () => {
    const res = load([
      "--disable-p2p",
      "--vn.901.signer.endpoint",
      "http://127.0.0.1:8000",
      "--vn.901.signer.address",
      ADDR,
      "--vn.901.signer.tls.enabled=false",
    ]);
    expect(res.warnings.some((w) => w.includes("signer.endpoint has no effect"))).toBe(true);
  });
});

describeWithTools(["openssl"], "signer.tls.* files", ({ openssl }) => {
  let pki: TestPki;
  beforeAll(() => {
    pki = makeTestPki(openssl);
  });
  afterAll(() => rmSync(pki.dir, { recursive: true, force: true }));

  it("accepts readable PEM files that belong together; a key of another certificate or a non-PEM file is an error", () => {
    const tls = (ca: string, cert: string, key: string) => [
      "--vn.901.signer.endpoint",
      "https://127.0.0.1:8000",
      "--vn.901.signer.address",
      ADDR,
      "--vn.901.signer.tls.ca",
      ca,
      "--vn.901.signer.tls.cert",
      cert,
      "--vn.901.signer.tls.key",
      key,
    ];
    const good = load(tls(pki.ca, pki.clientCert, pki.clientKey));
    expect(good.issues).toEqual([]);
    expect(good.config?.chainConfigs[0]?.p2p.remoteSigner?.tls).toEqual({
      ca: pki.ca,
      cert: pki.clientCert,
      key: pki.clientKey,
    });
    expect(messages(load(tls(pki.ca, pki.clientCert, pki.serverKey)).issues)).toEqual([
      `--vn.901.signer.tls.key: ${pki.serverKey} is not the key of the certificate ${pki.clientCert}`,
    ]);
    expect(messages(load(tls(f.jwt, pki.clientCert, f.jwt)).issues)).toEqual([
      `--vn.901.signer.tls.ca: ${f.jwt} is not a PEM certificate`,
      `--vn.901.signer.tls.key: ${f.jwt} is not a PEM private key`,
    ]);
    // http:// with TLS files: allowed, with a warning that TLS is not used.
    const http = load(tls(pki.ca, pki.clientCert, pki.clientKey).map((a) => a.replace("https:", "http:")));
    expect(http.warnings.some((w) => w.includes("reached without TLS"))).toBe(true);
  });
});
