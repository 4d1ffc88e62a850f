// Preloaded into the supernode's process by the `scale` benchmark (node --import): samples the event loop's delay
// with perf_hooks.monitorEventLoopDelay at 1 ms resolution and answers {p50, p99, max} in milliseconds over the IPC
// channel on each "stats" message (then starts a new window). Nothing else runs in the process.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { createHistogram, monitorEventLoopDelay } from "node:perf_hooks";

const RESOLUTION_MS = 1;
const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
h.enable();
// The same loop measured in CPU time, which a loaded machine does not inflate: the process CPU (µs, all threads)
// used between two ticks of a 1-ms timer. When the loop is held by our own work for 20 ms, ~20 ms; when the OS
// does not run the process for 20 ms, ~0.
const cpuHist = createHistogram();
let lastCpu = process.cpuUsage();
const tick = () => {
  const c = process.cpuUsage();
  cpuHist.record(Math.max(1, c.user + c.system - lastCpu.user - lastCpu.system));
  lastCpu = c;
  setTimeout(tick, RESOLUTION_MS).unref();
};
setTimeout(tick, RESOLUTION_MS).unref();
if (typeof process.send === "function") {
  let session;
  process.on("message", (msg) => {
    // With SCALE_CPU_PROF=<file>: "prof-start" / "prof-stop" record a CPU profile of the steady state.
    if (msg === "prof-start" && process.env.SCALE_CPU_PROF) {
      session = new Session();
      session.connect();
      session.post("Profiler.enable", () => session.post("Profiler.start", () => process.send("prof-started")));
      return;
    }
    if (msg === "prof-stop" && session !== undefined) {
      session.post("Profiler.stop", (err, res) => {
        if (!err) writeFileSync(process.env.SCALE_CPU_PROF, JSON.stringify(res.profile));
        session.disconnect();
        process.send("prof-stopped");
      });
      return;
    }
    if (msg !== "stats") return;
    const ms = (ns) => ns / 1e6;
    process.send({
      resolutionMs: RESOLUTION_MS,
      p50: ms(h.percentile(50)),
      p99: ms(h.percentile(99)),
      max: ms(h.max),
      count: h.count,
      cpuP99: cpuHist.percentile(99) / 1000,
      cpuMax: cpuHist.max / 1000,
    });
    h.reset();
    cpuHist.reset();
  });
  // the IPC channel must not keep a stopping process alive
  process.channel?.unref();
}
