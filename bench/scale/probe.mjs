// Preloaded into the supernode's process by the `scale` benchmark (node --import): samples the event loop's delay
// with perf_hooks.monitorEventLoopDelay at 1 ms resolution and answers {p50, p99, max} in milliseconds over the IPC
// channel on each "stats" message (then starts a new window). Nothing else runs in the process.
import { monitorEventLoopDelay } from "node:perf_hooks";

const RESOLUTION_MS = 1;
const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
h.enable();
if (typeof process.send === "function") {
  process.on("message", (msg) => {
    if (msg !== "stats") return;
    const ms = (ns) => ns / 1e6;
    process.send({
      resolutionMs: RESOLUTION_MS,
      p50: ms(h.percentile(50)),
      p99: ms(h.percentile(99)),
      max: ms(h.max),
      count: h.count,
    });
    h.reset();
  });
  // the IPC channel must not keep a stopping process alive
  process.channel?.unref();
}
