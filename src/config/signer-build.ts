/**
 * The per-chain remote block signer (`signer.*`, op-service's flags): checked at startup so that a signer that can
 * never work is an error before anything runs, not a silent "nothing is gossiped". Endpoint and address come
 * together (as op-service requires), the address is 20 bytes of hex, the endpoint an http(s) URL, headers `k=v`,
 * and with `signer.tls.enabled` (the default, as in op-service) the CA, client certificate and key must be readable
 * PEM and the key must belong to the certificate. `p2p.sequencer.key` together with the endpoint is rejected in
 * chain-build.ts.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { redactUrl } from "./effective.js";
import type { ConfigIssue, ConfigWarning } from "./issues.js";
import type { RemoteSignerConfig } from "./types.js";
import type { OptionValue } from "./values.js";

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface SignerBuildContext {
  readonly key: string;
  readonly opts: Readonly<Record<string, OptionValue | undefined>>;
  /** The option as the operator wrote it (flag or env), for messages. */
  readonly flag: (name: string) => string;
  readonly issues: ConfigIssue[];
  readonly warnings: ConfigWarning[];
  readonly p2pDisabled: boolean;
}

const str = (v: OptionValue | undefined): string => (typeof v === "string" ? v.trim() : "");
const list = (v: OptionValue | undefined): string[] => (Array.isArray(v) ? v.map(String) : []);

/** The remote signer of one chain, or undefined when `signer.endpoint` is not set (problems go to `issues`). */
export function buildRemoteSigner(c: SignerBuildContext): RemoteSignerConfig | undefined {
  const { key, opts, flag, issues } = c;
  const endpoint = str(opts["signer.endpoint"]);
  const address = str(opts["signer.address"]);
  const issue = (option: string, message: string) => issues.push({ option: flag(option), chain: key, message });
  if (endpoint === "") {
    if (address !== "") issue("signer.address", "needs signer.endpoint (endpoint and address are set together)");
    return undefined;
  }
  const before = issues.length;
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    // reported below
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:"))
    issue("signer.endpoint", "must be an http(s) URL");
  if (address === "") issue("signer.address", "required with signer.endpoint: the address the signer signs with");
  else if (!/^0x[0-9a-fA-F]{40}$/.test(address)) issue("signer.address", "must be a 20-byte hex address (0x + 40)");
  const headers: Record<string, string> = {};
  for (const h of list(opts["signer.header"])) {
    const eq = h.indexOf("=");
    const name = eq > 0 ? h.slice(0, eq).trim() : "";
    // The value is never echoed: headers often carry credentials.
    if (!HEADER_NAME.test(name)) issue("signer.header", `expected key=value with a valid header name (got "${name}")`);
    else headers[name.toLowerCase()] = h.slice(eq + 1).trim();
  }
  let tls: RemoteSignerConfig["tls"];
  if (opts["signer.tls.enabled"] !== false) {
    tls = {
      ca: resolve(str(opts["signer.tls.ca"])),
      cert: resolve(str(opts["signer.tls.cert"])),
      key: resolve(str(opts["signer.tls.key"])),
    };
    checkTlsFiles(tls, issue);
    if (url?.protocol === "http:")
      c.warnings.push({
        msg: "signer.tls.enabled is set but signer.endpoint is http://: the remote signer is reached without TLS",
        fields: { chain: key, endpoint: redactUrl(endpoint) },
      });
  }
  if (c.p2pDisabled)
    c.warnings.push({
      msg: "signer.endpoint has no effect: P2P is disabled for this chain, so no block is gossiped",
      fields: { chain: key },
    });
  if (issues.length > before) return undefined;
  return { endpoint, address: address.toLowerCase(), headers, ...(tls === undefined ? {} : { tls }) };
}

function checkTlsFiles(
  tls: NonNullable<RemoteSignerConfig["tls"]>,
  issue: (option: string, message: string) => void,
): void {
  const read = (option: string, path: string): string | undefined => {
    try {
      return readFileSync(path, "utf8");
    } catch (e) {
      issue(option, `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      return undefined;
    }
  };
  const ca = read("signer.tls.ca", tls.ca);
  const cert = read("signer.tls.cert", tls.cert);
  const key = read("signer.tls.key", tls.key);
  if (ca !== undefined) {
    try {
      new X509Certificate(ca);
    } catch {
      issue("signer.tls.ca", `${tls.ca} is not a PEM certificate`);
    }
  }
  let x509: X509Certificate | undefined;
  if (cert !== undefined) {
    try {
      x509 = new X509Certificate(cert);
    } catch {
      issue("signer.tls.cert", `${tls.cert} is not a PEM certificate`);
    }
  }
  if (key !== undefined) {
    try {
      const k = createPrivateKey(key);
      if (x509 !== undefined && !x509.checkPrivateKey(k))
        issue("signer.tls.key", `${tls.key} is not the key of the certificate ${tls.cert}`);
    } catch {
      issue("signer.tls.key", `${tls.key} is not a PEM private key`);
    }
  }
}
