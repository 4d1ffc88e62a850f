/**
 * Remote block signing (`signer.*`) on loopback: a signature from an op-signer-like server in this process
 * (test/support/remote-signer-server.ts, viem signing), sequential requests as the publisher makes them.
 * - `remote_sign_p50_ms_http` / `_p99_`: round trip of `opsigner_signBlockPayload` over plain HTTP (keep-alive);
 *   `remote_sign_p50_ms_mtls` / `_p99_`: the same over mutual TLS 1.3 (one handshake, then keep-alive).
 * - `remote_sign_cpu_us_http` / `_mtls`: process CPU per signature (client + server, both here); control in the same
 *   run: `server_sign_cpu_us` (the server's signing alone) and `local_sign_cpu_us` (`p2p.sequencer.key` signing).
 * - `remote_check_cpu_us`: the publisher's check of a remote signature (one secp256k1 recovery).
 * - `load_avg_1m`: the machine's load at the end (other sessions share it).
 * Environment: `SIGNER_BENCH_N` (default 300 signatures per transport). The mutual-TLS part needs `openssl`.
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { type Hex, keccak256, toHex } from "viem";
import { privateKeyToAddress, sign } from "viem/accounts";
import { LocalBlockSigner, RemoteBlockSigner } from "supernode/node";
import { recoverSigner, signingHashOfPayloadHash } from "supernode/protocol";
import { startTestSigner } from "../test/support/remote-signer-server.js";
import { findTool } from "../test/support/system-tools.js";
import { makeTestPki } from "../test/support/tls-certs.js";
import { type Bench, type Figure, note } from "./harness.js";

const N = Number(process.env.SIGNER_BENCH_N ?? 300);
const KEY: Hex = `0x${"5e".repeat(32)}`;
const ADDR = privateKeyToAddress(KEY);

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;
const round = (x: number) => Math.round(x * 100) / 100;

/** Times N signatures and reports the round trip (p50, p99) and the CPU per signature under `suffix`. */
async function timed(signer: RemoteBlockSigner, suffix: string, report: (f: Figure) => void): Promise<void> {
  await signer.sign(901n, keccak256(toHex("warm-up"), "bytes"));
  const rtt: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const hash = keccak256(toHex(`block ${i}`), "bytes");
    const t0 = performance.now();
    await signer.sign(901n, hash);
    rtt.push(performance.now() - t0);
  }
  const d = process.cpuUsage(cpu0);
  report({ figure: `remote_sign_p50_ms_${suffix}`, value: round(pct(rtt, 0.5)), unit: "ms" });
  report({ figure: `remote_sign_p99_ms_${suffix}`, value: round(pct(rtt, 0.99)), unit: "ms" });
  report({ figure: `remote_sign_cpu_us_${suffix}`, value: round((d.user + d.system) / N), unit: "us" });
}

function cpuUsPer(n: number, fn: (i: number) => unknown): number {
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) fn(i);
  const d = process.cpuUsage(cpu0);
  return (d.user + d.system) / n;
}

const bench: Bench = {
  name: "remote-signer",
  async run(report) {
    const http = await startTestSigner({ key: KEY });
    const client = new RemoteBlockSigner({ endpoint: http.url, address: ADDR });
    try {
      await timed(client, "http", report);
    } finally {
      client.close();
      await http.close();
    }

    const openssl = findTool("openssl");
    if (openssl === undefined) note("openssl missing: no mutual-TLS figures");
    else {
      const pki = makeTestPki(openssl);
      const tls = await startTestSigner({ key: KEY, tls: { ca: pki.ca, cert: pki.serverCert, key: pki.serverKey } });
      const mtls = new RemoteBlockSigner({
        endpoint: tls.url,
        address: ADDR,
        tls: { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey },
      });
      try {
        await timed(mtls, "mtls", report);
      } finally {
        mtls.close();
        await tls.close();
        rmSync(pki.dir, { recursive: true, force: true });
      }
    }

    // Controls: the server's signing alone, local signing, the publisher's recovery check.
    const hashes = Array.from({ length: N }, (_, i) => keccak256(toHex(`control ${i}`)));
    const cpu0 = process.cpuUsage();
    for (const h of hashes) await sign({ hash: h, privateKey: KEY });
    const d = process.cpuUsage(cpu0);
    report({ figure: "server_sign_cpu_us", value: round((d.user + d.system) / N), unit: "us" });
    const local = new LocalBlockSigner(Buffer.from(KEY.slice(2), "hex"));
    const payloadHash = keccak256(toHex("payload"), "bytes");
    report({ figure: "local_sign_cpu_us", value: round(cpuUsPer(N, () => local.sign(901n, payloadHash))), unit: "us" });
    const sig = local.sign(901n, payloadHash);
    const signing = signingHashOfPayloadHash(901n, payloadHash);
    report({ figure: "remote_check_cpu_us", value: round(cpuUsPer(N, () => recoverSigner(signing, sig))), unit: "us" });
    report({ figure: "load_avg_1m", value: round(loadavg()[0] ?? 0), unit: "" });
  },
};
export default bench;
