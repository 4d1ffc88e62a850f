// What made the `scale` benchmark's slow requests slow. Reads the files `SCALE_TRACE=<prefix>` writes (and the CPU
// profile of `SCALE_CPU_PROF=<prefix>` if given): every `stack_syncStatus` request at or above the p99 latency is
// set beside the supernode's loop stalls (1-ms ticks more than 3 ms apart: "busy" when the process used at least
// half the stall in CPU, else "not scheduled"), its GC pauses, and the main thread's profile samples while the
// request was open (self time by function, and by the first frame of our own code on the stack).
// Usage: node bench/scale/tail.mjs <trace-N.json> <trace-N-requests.json> [profile-N.cpuprofile]
import { readFileSync } from "node:fs";

const [traceFile, reqFile, profFile] = process.argv.slice(2);
const trace = JSON.parse(readFileSync(traceFile, "utf8"));
const reqs = JSON.parse(readFileSync(reqFile, "utf8"));

const pctOf = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const p99 = pctOf(reqs.sn, 99);
const cp99 = pctOf(reqs.control, 99);
const overlap = (a0, a1, b0, b1) => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

function classify(t0, ms) {
  const t1 = t0 + ms;
  let busy = 0;
  let unscheduled = 0;
  let gc = 0;
  for (const [s0, s1, cpu] of trace.stalls) {
    const o = overlap(t0, t1, s0, s1);
    if (o === 0) continue;
    if (cpu >= 0.5 * (s1 - s0)) busy += o;
    else unscheduled += o;
  }
  for (const [g0, dur] of trace.gcs) gc += overlap(t0, t1, g0, g0 + dur);
  return { busy, unscheduled, gc };
}

const slow = [];
const all = { busy: 0, unscheduled: 0, gc: 0, none: 0 };
for (let i = 0; i < reqs.sn.length; i++) {
  const ms = reqs.sn[i];
  if (ms < p99) continue;
  const c = classify(reqs.snAt[i], ms);
  slow.push({ at: reqs.snAt[i], ms, ...c });
  if (c.busy > 0) all.busy++;
  if (c.unscheduled > 0) all.unscheduled++;
  if (c.gc > 0) all.gc++;
  if (c.busy === 0 && c.unscheduled === 0 && c.gc === 0) all.none++;
}
const sum = (k) => slow.reduce((a, s) => a + s[k], 0);
const totalMs = sum("ms");
console.log(`requests ${reqs.sn.length}, p99 ${p99.toFixed(2)} ms (control p99 ${cp99.toFixed(2)} ms)`);
console.log(`slow (>= p99): ${slow.length}, their latency ${totalMs.toFixed(1)} ms in all`);
console.log(
  `  met a busy stall: ${all.busy} (${sum("busy").toFixed(1)} ms), an unscheduled stall: ${all.unscheduled} ` +
    `(${sum("unscheduled").toFixed(1)} ms), a GC pause: ${all.gc} (${sum("gc").toFixed(1)} ms), none: ${all.none}`,
);
const stallMs = trace.stalls.map(([a, b]) => b - a);
console.log(
  `stalls > 3 ms: ${trace.stalls.length} (busy ${trace.stalls.filter(([a, b, c]) => c >= 0.5 * (b - a)).length}), ` +
    `p50 ${pctOf(stallMs, 50)?.toFixed(2)} / max ${Math.max(...stallMs).toFixed(2)} ms; GC pauses ${trace.gcs.length}, ` +
    `${trace.gcs.reduce((a, g) => a + g[1], 0).toFixed(0)} ms in all, max ${Math.max(...trace.gcs.map((g) => g[1])).toFixed(2)} ms`,
);
// how often any request (not only slow ones) meets a stall: the base rate
let anyStall = 0;
for (let i = 0; i < reqs.sn.length; i++) {
  const c = classify(reqs.snAt[i], reqs.sn[i]);
  if (c.busy + c.unscheduled + c.gc > 0) anyStall++;
}
console.log(`all requests meeting a stall or GC: ${anyStall} (${((100 * anyStall) / reqs.sn.length).toFixed(2)} %)`);

if (profFile !== undefined) {
  const prof = JSON.parse(readFileSync(profFile, "utf8"));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) => {
    const f = n.callFrame;
    const file = f.url.replace(/^.*\/(dist|node_modules)\//, "$1/");
    return `${f.functionName || "(anon)"} ${file}:${f.lineNumber + 1}`;
  };
  const ours = (n) => n.callFrame.url.includes("/dist/");
  const self = new Map();
  const firstOurs = new Map();
  let t = prof.startTime / 1000; // µs → ms on the same monotonic clock
  let inSlow = 0;
  let k = 0;
  const sorted = slow.map((s) => [s.at, s.at + s.ms]).sort((a, b) => a[0] - b[0]);
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i] / 1000;
    while (k < sorted.length && sorted[k][1] < t) k++;
    if (k >= sorted.length) break;
    if (t < sorted[k][0]) continue;
    const dt = (prof.timeDeltas[i + 1] ?? 0) / 1000;
    const node = byId.get(prof.samples[i]);
    const nm = name(node);
    if (nm.startsWith("(idle)")) continue;
    inSlow += dt;
    self.set(nm, (self.get(nm) ?? 0) + dt);
    const id = node.id;
    let top = nm;
    // the outermost frame of our code on the stack says which step held the loop
    for (let cur = node; cur !== undefined; cur = byId.get(parent.get(cur.id))) if (ours(cur)) top = name(cur);
    void id;
    firstOurs.set(top, (firstOurs.get(top) ?? 0) + dt);
  }
  const show = (m, title) => {
    console.log(title);
    for (const [nm, ms] of [...m].sort((a, b) => b[1] - a[1]).slice(0, 25))
      console.log(`  ${ms.toFixed(1).padStart(7)} ms  ${nm}`);
  };
  console.log(`profile: ${inSlow.toFixed(1)} ms of non-idle samples inside slow requests`);
  show(self, "self time inside slow requests:");
  show(firstOurs, "outermost frame of our code (dist/) inside slow requests:");
}
