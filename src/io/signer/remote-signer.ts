/**
 * A client of an op-signer compatible remote signer (op-service's `SignerClient`), as far as block gossip needs it:
 * `opsigner_signBlockPayload` with the V1 arguments op-node sends (`domain` as an array of 32 numbers, `chainId` as
 * a JSON number, `payloadHash` as base64, `senderAddress` as hex) and a 65-byte hex signature back, plus the
 * `health_status` probe op-service calls once at start. JSON-RPC over HTTP(S) through `HttpRpcClient`; with TLS the
 * connection presents the client certificate and trusts only the configured CA (mutual TLS, TLS 1.3 as op-service
 * requires); a renewed client certificate is picked up from its files, as op-service's certman does. Extra headers
 * (`signer.header`) go with every request. Errors are typed: an unreachable or failing
 * signer is temporary (`SIGNER_UNAVAILABLE`); a signer that answers with an error or an unusable result is critical
 * (`SIGNER_REJECTED`, `SIGNER_BAD_RESPONSE`): retrying will not help until it is reconfigured. Neither message
 * carries the headers; the endpoint appears without credentials.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { Agent as HttpsAgent } from "node:https";
import { hexToBytes } from "../../core/codec/hex.js";
import type { Severity } from "../../core/errors/severity.js";
import { AbortedError, CriticalError, SupernodeError } from "../../core/errors/supernode-error.js";
import type { Clock } from "../../core/time/clock.js";
import { HttpRpcClient, RpcError } from "../json-rpc/http-client.js";

export interface RemoteSignerOptions {
  /** http(s) URL of the signer. */
  readonly endpoint: string;
  /** The address the signer signs for (`senderAddress`), 0x hex. */
  readonly address: string;
  /** Extra headers for every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** PEM files: the CA that signed the signer's certificate, and this client's certificate and key. */
  readonly tls?: { readonly ca: string; readonly cert: string; readonly key: string } | undefined;
  /** Per-request timeout (default 5 s). */
  readonly timeoutMs?: number;
  /** How often the client certificate and key files are checked for a change (default 1 s; op-service's certman). */
  readonly tlsReloadCheckMs?: number;
  readonly clock?: Clock;
}

export type SignerFailure = "unavailable" | "rejected" | "bad_response";

const CODES: Record<SignerFailure, string> = {
  unavailable: "SIGNER_UNAVAILABLE",
  rejected: "SIGNER_REJECTED",
  bad_response: "SIGNER_BAD_RESPONSE",
};

/** A failed remote-signer call; `failure` is the metric reason. */
export class SignerError extends SupernodeError {
  readonly failure: SignerFailure;
  constructor(failure: SignerFailure, message: string, cause?: unknown) {
    const severity: Severity = failure === "unavailable" ? "temporary" : "critical";
    super(CODES[failure], message, { severity, cause });
    this.failure = failure;
  }
}

const DEFAULT_TIMEOUT_MS = 5_000;
/** A signature response is ~140 bytes; anything much larger is not one. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** The endpoint without credentials or query (for logs and messages). */
export function endpointForLogs(endpoint: string): string {
  try {
    const u = new URL(endpoint);
    u.username = "";
    u.password = "";
    u.search = "";
    return u.toString();
  } catch {
    return "(unparsable URL)";
  }
}

export class RemoteBlockSigner {
  readonly address: string;
  /** Signatures come from outside the process: the publisher checks them before use. */
  readonly remote = true;
  readonly endpoint: string;
  private rpc: HttpRpcClient;
  private agent: HttpsAgent | undefined;
  /** The client certificate and key files as last loaded (mtimes), and when they were last checked. */
  private tlsStamp = "";
  private tlsCheckedAt = 0;

  constructor(private readonly opts: RemoteSignerOptions) {
    this.address = opts.address.toLowerCase();
    this.endpoint = endpointForLogs(opts.endpoint);
    if (this.usesTls()) {
      this.agent = tlsAgent(opts.tls as NonNullable<RemoteSignerOptions["tls"]>);
      this.tlsStamp = fileStamp(opts.tls as NonNullable<RemoteSignerOptions["tls"]>);
    }
    this.rpc = this.client();
  }

  private usesTls(): boolean {
    return this.opts.endpoint.startsWith("https:") && this.opts.tls !== undefined;
  }

  private client(): HttpRpcClient {
    const headers = { ...(this.opts.headers ?? {}) };
    return new HttpRpcClient({
      url: this.opts.endpoint,
      timeoutMs: this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      headers: () => headers,
      ...(this.agent === undefined ? {} : { agent: this.agent }),
      ...(this.opts.clock === undefined ? {} : { clock: this.opts.clock }),
    });
  }

  /**
   * Picks up a renewed client certificate, as op-service's certman does: when the certificate or key file changed
   * and the pair matches, the next requests use it (new connections); a half-written pair is tried again later.
   */
  private reloadTls(): void {
    const tls = this.opts.tls;
    if (tls === undefined || !this.usesTls()) return;
    const now = this.opts.clock?.nowMs() ?? Date.now();
    if (now - this.tlsCheckedAt < (this.opts.tlsReloadCheckMs ?? 1_000)) return;
    this.tlsCheckedAt = now;
    let stamp: string;
    try {
      stamp = fileStamp(tls);
      if (stamp === this.tlsStamp) return;
      const cert = new X509Certificate(readFileSync(tls.cert));
      if (!cert.checkPrivateKey(createPrivateKey(readFileSync(tls.key)))) return;
    } catch {
      return; // missing or unreadable for a moment: keep the certificate in use
    }
    const old = this.agent;
    this.agent = tlsAgent(tls);
    this.tlsStamp = stamp;
    this.rpc = this.client();
    old?.destroy();
  }

  /**
   * The 65-byte signature (r ‖ s ‖ v) of the block signing hash of (`SigningDomainBlocksV1`, chainId, payloadHash).
   * The signature is returned as the signer sent it; checking it is the caller's job.
   */
  async sign(chainId: bigint, payloadHash: Uint8Array, signal?: AbortSignal): Promise<Uint8Array> {
    if (chainId > BigInt(Number.MAX_SAFE_INTEGER))
      throw new SignerError("rejected", `chain ID ${chainId} does not fit the V1 signer API's JSON number`);
    const args = {
      domain: Array.from(new Uint8Array(32)),
      chainId: Number(chainId),
      payloadHash: Buffer.from(payloadHash).toString("base64"),
      senderAddress: this.address,
    };
    this.reloadTls();
    let result: unknown;
    try {
      result = await this.rpc.call("opsigner_signBlockPayload", [args], signal);
    } catch (err) {
      throw this.classify(err, "opsigner_signBlockPayload");
    }
    if (typeof result !== "string" || !/^0x[0-9a-fA-F]*$/.test(result) || result.length !== 2 + 130)
      throw new SignerError(
        "bad_response",
        `opsigner_signBlockPayload: expected 65 bytes of hex, got ${describe(result)} from ${this.endpoint}`,
      );
    return hexToBytes(result as `0x${string}`);
  }

  /** `health_status` (op-service checks it once when the client is made); the signer's version string. */
  async health(signal?: AbortSignal): Promise<string> {
    this.reloadTls();
    try {
      return String(await this.rpc.call("health_status", [], signal));
    } catch (err) {
      throw this.classify(err, "health_status");
    }
  }

  /** Closes the connections of this signer's own TLS agent. */
  close(): void {
    this.agent?.destroy();
  }

  private classify(err: unknown, method: string): Error {
    if (err instanceof AbortedError) return err;
    const msg = (err as Error)?.message ?? String(err);
    if (err instanceof RpcError)
      return new SignerError("rejected", `${method} refused by ${this.endpoint}: ${msg}`, err);
    if (err instanceof SupernodeError && err.severity === "critical")
      return new SignerError("rejected", `${method} refused by ${this.endpoint}: ${msg}`, err);
    return new SignerError("unavailable", `${method}: remote signer ${this.endpoint} unavailable: ${msg}`, err);
  }
}

/** A keep-alive https agent presenting the client certificate and trusting only the CA (checked at startup too). */
function tlsAgent(tls: NonNullable<RemoteSignerOptions["tls"]>): HttpsAgent {
  const read = (path: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new CriticalError("SIGNER_TLS_FILES", `remote signer: cannot read ${path}: ${(err as Error).message}`);
    }
  };
  return new HttpsAgent({
    keepAlive: true,
    maxSockets: 4,
    ca: read(tls.ca),
    cert: read(tls.cert),
    key: read(tls.key),
    minVersion: "TLSv1.3",
  });
}

function fileStamp(tls: NonNullable<RemoteSignerOptions["tls"]>): string {
  return `${statSync(tls.cert).mtimeMs}:${statSync(tls.key).mtimeMs}`;
}

function describe(v: unknown): string {
  if (typeof v !== "string") return typeof v;
  return /^0x[0-9a-fA-F]*$/.test(v) ? `${(v.length - 2) / 2} bytes` : "a non-hex string";
}
