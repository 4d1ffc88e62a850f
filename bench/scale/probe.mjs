// Preloaded into the supernode's process by the `scale` benchmark (node --import): samples the event loop's delay
// with perf_hooks.monitorEventLoopDelay at 1 ms resolution and answers {p50, p99, max} in milliseconds over the IPC
// channel on each "stats" message (then starts a new window). Nothing else runs in the process.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { setFlagsFromString } from "node:v8";
import { createHistogram, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";

const RESOLUTION_MS = 1;
const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
h.enable();
// The same loop measured in CPU time, which a loaded machine does not inflate: the process CPU (µs, all threads)
// used between two ticks of a 1-ms timer. When the loop is held by our own work for 20 ms, ~20 ms; when the OS
// does not run the process for 20 ms, ~0.
const cpuHist = createHistogram();
let lastCpu = process.cpuUsage();
// With SCALE_TRACE=<file>: every loop stall (two 1-ms ticks more than TRACE_GAP_MS apart: its start and end on the
// machine's monotonic clock, in ms, and the process CPU used meanwhile) and every GC pause (start, duration, kind)
// of the steady state, written to <file> as JSON at "prof-stop"/"trace-stop", to set beside the load client's slow
// requests (same clock).
const TRACE = process.env.SCALE_TRACE;
const TRACE_GAP_MS = 3;
const monoMs = () => Number(process.hrtime.bigint()) / 1e6;
const perfToMono = monoMs() - performance.now();
let tracing = false;
const stalls = [];
const gcs = [];
let lastTick = monoMs();
if (TRACE) {
  new PerformanceObserver((list) => {
    if (!tracing) return;
    for (const e of list.getEntries()) gcs.push([e.startTime + perfToMono, e.duration, e.detail?.kind ?? e.kind]);
  }).observe({ entryTypes: ["gc"] });
}
const tick = () => {
  const c = process.cpuUsage();
  const used = Math.max(1, c.user + c.system - lastCpu.user - lastCpu.system);
  cpuHist.record(used);
  lastCpu = c;
  if (tracing) {
    const t = monoMs();
    if (t - lastTick > TRACE_GAP_MS) stalls.push([lastTick, t, used / 1000]);
    lastTick = t;
  }
  setTimeout(tick, RESOLUTION_MS).unref();
};
setTimeout(tick, RESOLUTION_MS).unref();
// SCALE_WORKER_PROBE=1 (an experiment, docs/performance.md): a bare node:http server in a worker thread of this process,
// answering a reply of stack_syncStatus's size; the bench's load client then asks it instead of the chains. Its
// latency is what read-only methods served off the main thread would see while the chains run.
let workerPort;
if (process.env.SCALE_WORKER_PROBE === "1") {
  const { Worker } = await import("node:worker_threads");
  const w = new Worker(
    `
    const { createServer } = require("node:http");
    const { parentPort } = require("node:worker_threads");
    const reply = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { padding: "x".repeat(1500) } });
    const server = createServer((req, res) => { req.resume(); req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(reply) }); res.end(reply); }); });
    server.keepAliveTimeout = 60000;
    server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
  `,
    { eval: true },
  );
  w.unref();
  workerPort = await new Promise((r) => w.once("message", r));
}
if (typeof process.send === "function") {
  let session;
  process.on("message", (msg) => {
    if (msg === "trace-start" && TRACE) {
      tracing = true;
      lastTick = monoMs();
      if (process.env.SCALE_GC_NVP) setFlagsFromString("--trace-gc-nvp");
      process.send("trace-started");
      return;
    }
    if (msg === "trace-stop" && TRACE) {
      tracing = false;
      if (process.env.SCALE_GC_NVP) setFlagsFromString("--no-trace-gc-nvp");
      writeFileSync(TRACE, JSON.stringify({ stalls, gcs }));
      process.send("trace-stopped");
      return;
    }
    // With SCALE_CPU_PROF=<file>: "prof-start" / "prof-stop" record a CPU profile of the steady state.
    if (msg === "prof-start" && process.env.SCALE_CPU_PROF) {
      session = new Session();
      session.connect();
      session.post("Profiler.enable", () => session.post("Profiler.start", () => process.send("prof-started")));
      return;
    }
    // With SCALE_HEAP_PROF=<file>: "heap-start" / "heap-stop" record V8's sampling heap profile of everything
    // allocated in the steady state (objects the scavenges collected included): who allocates.
    if (msg === "heap-start" && process.env.SCALE_HEAP_PROF) {
      session = new Session();
      session.connect();
      const params = {
        samplingInterval: 16384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      };
      session.post("HeapProfiler.startSampling", params, () => process.send("heap-started"));
      return;
    }
    if (msg === "heap-stop" && session !== undefined) {
      stopProfile(session, "HeapProfiler.stopSampling", process.env.SCALE_HEAP_PROF, "heap-stopped");
      return;
    }
    if (msg === "prof-stop" && session !== undefined) {
      stopProfile(session, "Profiler.stop", process.env.SCALE_CPU_PROF, "prof-stopped");
      return;
    }
    if (msg === "worker-port") {
      process.send({ port: workerPort });
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

/** Stops an inspector profile (`method`), writes it to `file`, closes the session and tells the bench `reply`. */
function stopProfile(session, method, file, reply) {
  session.post(method, (err, res) => {
    if (!err) writeFileSync(file, JSON.stringify(res.profile));
    session.disconnect();
    process.send(reply);
  });
}
