/**
 * Benchmark `interop-devnet`: a soak run of `supernode-devnet --interop --invalid-messages` in one process (anvil,
 * two simulated execution clients, batchers, the supernode, the message traffic), longer than a test may take:
 * 1-s L1 and L2 blocks, a valid round every 2 blocks, an invalid message every 10 blocks, a 20 s expiry window (so
 * every invalid kind comes round within the run), for `INTEROP_DEVNET_BENCH_SECONDS` (default 120).
 *
 * Figures: valid messages executed per minute, invalid messages sent and replaced (per kind and in total;
 * `invalid_replaced_ratio` should be 1), `invalid_kinds_replaced` (of 4), the interop activity's verified
 * timestamps per wall-clock second over the run (≈ 1 when it keeps up with 1-s blocks) with the chains' own
 * local-safe progress per second as the control measured in the same run (`verified_vs_local_safe_ratio`), the mean
 * distance unsafe − safe in blocks, and the supernode's `supernode_interop_invalidations_total`. The load average is
 * printed with the figures.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startDevnetSupernode } from "supernode-devnet";
import { silentLogger } from "supernode/core";
import { INVALID_KINDS } from "supernode-devnet/interop-messages";
import { type Bench, note } from "./harness.js";
import { interopDevnetOptions } from "../test/support/interop-devnet.js";

const SECONDS = Number(process.env.INTEROP_DEVNET_BENCH_SECONDS ?? 120);

async function rpc(url: string, method: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method }),
  });
  return ((await res.json()) as { result: Record<string, unknown> }).result;
}

const bench: Bench = {
  name: "interop-devnet",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "bench-interop-devnet-"));
    const dn = await startDevnetSupernode(
      interopDevnetOptions(dir, {
        interop: { everyBlocks: 2, invalidMessages: true, invalidEveryBlocks: 10, messageExpiryWindowSec: 20 },
      }),
      { logger: silentLogger },
    );
    try {
      const url = `${dn.supernode.rpc.url}/`;
      const sample = async () => {
        const st = (await rpc(url, "supernode_syncStatus")) as {
          interop?: { verified_timestamp: number };
          local_safe_timestamp: number;
          chains: Record<string, { unsafe_l2: { number: number }; safe_l2: { number: number } }>;
        };
        return {
          verified: st.interop?.verified_timestamp ?? 0,
          localSafe: st.local_safe_timestamp,
          lag: Object.values(st.chains).map((c) => c.unsafe_l2.number - c.safe_l2.number),
        };
      };
      // start measuring once verification has begun
      let first = await sample();
      while (first.verified === 0) {
        await new Promise((r) => setTimeout(r, 500));
        first = await sample();
      }
      const t0 = Date.now();
      const lags: number[] = [];
      let last = first;
      while (Date.now() - t0 < SECONDS * 1000) {
        await new Promise((r) => setTimeout(r, 2_000));
        last = await sample();
        lags.push(...last.lag);
        note(
          `  +${Math.round((Date.now() - t0) / 1000)} s  verified ${last.verified}  ${JSON.stringify(dn.traffic?.stats().invalid)}`,
        );
      }
      const wall = (Date.now() - t0) / 1000;
      const stats = dn.traffic!.stats();
      const sent = Object.values(stats.invalid).reduce((a, b) => a + b, 0);
      const metrics = await (await fetch(dn.supernode.metricsServer!.url)).text();
      const invalidations = metrics
        .split("\n")
        .filter((l) => l.startsWith("supernode_interop_invalidations_total{"))
        .reduce((a, l) => a + Number(l.split(" ")[1]), 0);
      const verifiedPerS = (last.verified - first.verified) / wall;
      const localSafePerS = (last.localSafe - first.localSafe) / wall;
      note(`load average ${loadavg()[0]?.toFixed(1)} (2 cores), ${wall.toFixed(0)} s`);
      report({ figure: "valid_messages_per_min", value: (stats.executed / wall) * 60, unit: "messages/min" });
      for (const k of INVALID_KINDS) {
        report({ figure: `invalid_sent_${k}`, value: stats.invalid[k], unit: "messages" });
        report({ figure: `invalid_replaced_${k}`, value: stats.replacedByKind[k], unit: "blocks" });
      }
      report({ figure: "invalid_replaced_ratio", value: sent === 0 ? 0 : stats.invalidReplaced / sent, unit: "ratio" });
      report({
        figure: "invalid_kinds_replaced",
        value: INVALID_KINDS.filter((k) => stats.replacedByKind[k] > 0).length,
        unit: "kinds",
      });
      report({ figure: "invalidations_total", value: invalidations, unit: "blocks" });
      report({ figure: "verified_timestamps_per_s", value: verifiedPerS, unit: "timestamps/s" });
      report({ figure: "local_safe_timestamps_per_s", value: localSafePerS, unit: "timestamps/s" });
      report({
        figure: "verified_vs_local_safe_ratio",
        value: localSafePerS === 0 ? 0 : verifiedPerS / localSafePerS,
        unit: "ratio",
      });
      report({
        figure: "safe_lag_blocks_mean",
        value: lags.length === 0 ? 0 : lags.reduce((a, b) => a + b, 0) / lags.length,
        unit: "blocks",
      });
      report({ figure: "traffic_errors", value: stats.errors, unit: "errors" });
    } finally {
      await dn.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
