import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_L1_MAX_RESPONSE_BYTES } from "supernode/json-rpc";
import { type Bench, note } from "./harness.js";

/**
 * Peak RSS of a process that reads a 400 MB upstream response: with the default L1 bound (64 MiB, aborted while
 * streaming) and, as the control in the same run, unbounded. Each run is its own child process, so the peaks are
 * independent. Issue 11 defect 4: unbounded, such a response took the supernode to 1.7 GB RSS.
 */
const here = dirname(fileURLToPath(import.meta.url));
const BODY_MB = Number(process.env.RESPONSE_LIMIT_BENCH_MB ?? 400);

function peak(limit: string): { outcome: string; maxRssMb: number } {
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", join(here, "response-limit-child.ts"), String(BODY_MB), limit],
    { encoding: "utf8", maxBuffer: 1 << 20 },
  );
  return JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
}

const bench: Bench = {
  name: "response-limit",
  async run(report) {
    const bounded = peak(String(DEFAULT_L1_MAX_RESPONSE_BYTES));
    note(
      `bounded (${DEFAULT_L1_MAX_RESPONSE_BYTES} bytes): ${bounded.outcome}, peak RSS ${bounded.maxRssMb.toFixed(0)} MB`,
    );
    report({ figure: "rss_peak_bounded_mb", value: Math.round(bounded.maxRssMb), unit: "MB" });
    const control = peak("none");
    note(`unbounded control: ${control.outcome}, peak RSS ${control.maxRssMb.toFixed(0)} MB`);
    report({ figure: "rss_peak_unbounded_mb", value: Math.round(control.maxRssMb), unit: "MB" });
    report({ figure: "rss_peak_ratio_unbounded_to_bounded", value: control.maxRssMb / bounded.maxRssMb, unit: "x" });
  },
};
export default bench;
