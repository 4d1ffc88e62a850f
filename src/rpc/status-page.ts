/**
 * `GET /status`: a read-only status page for operators, one self-contained HTML document (inline CSS and script, no
 * external assets). The script reads what any client can read, so it works with the admin namespace off:
 * `supernode_syncStatus` at `POST /` (every chain's heads, L1 positions, the aggregate interop timestamps and the
 * chains' states), `GET /readyz` (per-chain state and reason), `GET /healthz` (version) and, per chain,
 * `stackp2p_peerStats` (shown only when the chain answers it). It refreshes itself every 2 s (`?refresh=<ms>`).
 */

const CSS = `
:root { color-scheme: light dark; --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --mute: #6e7781; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; }
h1 { font-size: 1.3rem; margin: 0 0 .25rem; } h2 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
.meta { color: var(--mute); } .meta span { margin-right: 1.25rem; }
table { border-collapse: collapse; min-width: 60%; }
th, td { padding: .3rem .7rem; border-bottom: 1px solid #8884; text-align: right; font-variant-numeric: tabular-nums; }
th:first-child, td:first-child, td.state, td.reason { text-align: left; }
td.reason { color: var(--mute); max-width: 30rem; overflow-wrap: anywhere; }
.running, .ready { color: var(--ok); font-weight: 600; } .stalled, .backoff, .degraded { color: var(--warn); font-weight: 600; }
.failed, .stopped, .not-ready, .error { color: var(--bad); font-weight: 600; }
`;

const SCRIPT = `
"use strict";
const refreshMs = Math.max(500, Number(new URLSearchParams(location.search).get("refresh")) || 2000);
const $ = (id) => document.getElementById(id);
let rpcId = 0;
async function rpc(path, method, params) {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params: params || [] }) });
  const body = await res.json();
  if (body.error) throw new Error(body.error.message);
  return body.result;
}
async function getJson(path) { return (await fetch(path)).json(); }
function cell(tr, field, value, cls) {
  const td = document.createElement("td");
  td.dataset.field = field;
  td.textContent = value === undefined || value === null ? "–" : String(value);
  if (cls) td.className = cls;
  tr.appendChild(td);
}
function when(ts) { return ts > 0 ? new Date(ts * 1000).toISOString().replace("T", " ").replace(".000Z", " UTC") : "–"; }
function reasonOf(h) {
  if (!h || typeof h !== "object") return "";
  return String(h.reason || h.lastError || h.error || "");
}
async function refresh() {
  try {
    const [sync, ready, health] = await Promise.all([
      rpc("/", "supernode_syncStatus"),
      getJson("/readyz"),
      getJson("/healthz").catch(() => ({})),
    ]);
    const ids = sync.chain_ids || [];
    const p2p = await Promise.all(ids.map((id) => rpc("/" + id + "/", "stackp2p_peerStats").catch(() => undefined)));
    let l1Head = 0;
    for (const id of ids) l1Head = Math.max(l1Head, sync.chains[id].head_l1.number);
    $("version").textContent = health.version || "";
    $("ready").textContent = ready.ready ? "ready" : "not ready";
    $("ready").className = ready.ready ? "ready" : "not-ready";
    $("l1-head").textContent = String(l1Head);
    $("current-l1").textContent = String(sync.current_l1.number);
    const body = $("chains");
    body.replaceChildren();
    ids.forEach((id, i) => {
      const s = sync.chains[id];
      const h = (ready.chains || {})[id];
      const state = (h && h.state) || sync.chain_states[id] || "unknown";
      const tr = document.createElement("tr");
      tr.dataset.chain = id;
      cell(tr, "chain", id);
      cell(tr, "state", state, "state " + state);
      cell(tr, "unsafe", s.unsafe_l2.number);
      cell(tr, "cross_unsafe", s.cross_unsafe_l2.number);
      cell(tr, "local_safe", s.local_safe_l2.number);
      cell(tr, "safe", s.safe_l2.number);
      cell(tr, "finalized", s.finalized_l2.number);
      cell(tr, "safe_lag", s.unsafe_l2.number - s.safe_l2.number);
      cell(tr, "l1_origin", s.current_l1.number);
      cell(tr, "l1_lag", Math.max(0, s.head_l1.number - s.current_l1.number));
      cell(tr, "peers", p2p[i] ? p2p[i].connected : "off");
      cell(tr, "reason", reasonOf(h), "reason");
      body.appendChild(tr);
    });
    $("safe-ts").textContent = when(sync.safe_timestamp);
    $("local-safe-ts").textContent = when(sync.local_safe_timestamp);
    $("finalized-ts").textContent = when(sync.finalized_timestamp);
    const withP2p = p2p.filter((x) => x);
    $("p2p").hidden = withP2p.length === 0;
    $("p2p-summary").textContent = withP2p.length + " of " + ids.length + " chains with P2P, " +
      withP2p.reduce((a, x) => a + (x.connected || 0), 0) + " peers connected";
    $("error").textContent = "";
    $("updated").textContent = new Date().toISOString().slice(11, 19) + " UTC";
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
  } catch (err) {
    $("error").textContent = "update failed: " + (err && err.message ? err.message : String(err));
  } finally {
    setTimeout(refresh, refreshMs);
  }
}
refresh();
`;

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>supernode status</title>
<style>${CSS}</style>
</head>
<body data-updates="0">
<h1>supernode <span id="version" class="meta"></span></h1>
<p class="meta"><span>status: <b id="ready">…</b></span><span>L1 head <b id="l1-head">–</b></span>
<span>slowest chain derived up to L1 <b id="current-l1">–</b></span><span>updated <b id="updated">–</b></span>
<span id="error" class="error"></span></p>
<h2>Chains</h2>
<table>
<thead><tr><th>chain</th><th>state</th><th>unsafe</th><th>cross-unsafe</th><th>local-safe</th><th>safe</th>
<th>finalized</th><th>unsafe − safe</th><th>derived to L1</th><th>L1 lag</th><th>P2P peers</th><th>reason</th></tr></thead>
<tbody id="chains"></tbody>
</table>
<h2>Interop</h2>
<p class="meta" id="interop"><span>safe (cross-verified) up to <b id="safe-ts">–</b></span>
<span>local-safe up to <b id="local-safe-ts">–</b></span><span>finalized up to <b id="finalized-ts">–</b></span></p>
<section id="p2p" hidden><h2>P2P</h2><p class="meta" id="p2p-summary"></p></section>
<script>${SCRIPT}</script>
</body>
</html>
`;

/** The page (constant: everything dynamic is fetched by its script). */
export function statusPageHtml(): string {
  return HTML;
}

/** Response headers of the page: no caching, no framing, nothing loaded from anywhere but this server. */
export const STATUS_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};
