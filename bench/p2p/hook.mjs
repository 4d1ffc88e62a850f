// Preloaded into the follower supernode by the `p2p` benchmark (node --import): samples the event loop's delay at
// 1 ms and the process CPU used between two ticks of a 1-ms timer (which a loaded machine does not inflate). The
// first SIGUSR2 starts a window (and, with P2P_BENCH_HOOK_PROF=<file>, a CPU profile); the second writes
// {p50, p99, max, cpuP99, cpuMax} in ms to $P2P_BENCH_HOOK_OUT (and the profile). Nothing else runs here.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { createHistogram, monitorEventLoopDelay } from "node:perf_hooks";

const RES = 1;
const h = monitorEventLoopDelay({ resolution: RES });
h.enable();
const cpu = createHistogram();
let last = process.cpuUsage();
const tick = () => {
  const c = process.cpuUsage();
  cpu.record(Math.max(1, c.user + c.system - last.user - last.system));
  last = c;
  setTimeout(tick, RES).unref();
};
setTimeout(tick, RES).unref();
let session;
let open = false;
process.on("SIGUSR2", () => {
  if (!open) {
    open = true;
    h.reset();
    cpu.reset();
    if (process.env.P2P_BENCH_HOOK_PROF) {
      session = new Session();
      session.connect();
      session.post("Profiler.enable", () => session.post("Profiler.start"));
    }
    return;
  }
  open = false;
  const ms = (ns) => ns / 1e6;
  const out = process.env.P2P_BENCH_HOOK_OUT;
  if (out)
    writeFileSync(
      out,
      JSON.stringify({
        p50: Math.max(0, ms(h.percentile(50)) - RES),
        p99: Math.max(0, ms(h.percentile(99)) - RES),
        max: Math.max(0, ms(h.max) - RES),
        cpuP99: cpu.percentile(99) / 1000,
        cpuMax: cpu.max / 1000,
      }),
    );
  if (session !== undefined) {
    const s = session;
    session = undefined;
    s.post("Profiler.stop", (err, res) => {
      if (!err) writeFileSync(process.env.P2P_BENCH_HOOK_PROF, JSON.stringify(res.profile));
      s.disconnect();
    });
  }
});
