import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * What the `supernode` binary loads before any chain is built (docs/performance.md, a verifier's RSS): the code a
 * P2P-less verifier never runs is loaded only when a chain needs it (libp2p and the P2P stack by app/chain-factory.ts,
 * @noble/curves only where libsecp256k1's binding does not load), and zod is gone.
 */
const ROOTS = ["src/cli/program.ts", "src/app/run.ts"].map((p) => pathToFileURL(resolve(process.cwd(), p)).href);
const SENTINEL = "node:path?sentinel";
// A resolve hook (on the loader thread) that reports every module resolved, tsx's hooks after it.
const HOOKS = `let port;
export function initialize(d) { port = d.port; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  port.postMessage(specifier === ${JSON.stringify(SENTINEL)} ? specifier : r.url);
  return r;
}`;
const CHILD = `
import { register } from "node:module";
import { MessageChannel } from "node:worker_threads";
const { port1, port2 } = new MessageChannel();
const urls = [];
const done = new Promise((end) => port1.on("message", (u) => (u === ${JSON.stringify(SENTINEL)} ? end() : urls.push(u))));
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOKS)}), {
  data: { port: port2 },
  transferList: [port2],
});
for (const root of ${JSON.stringify(ROOTS)}) await import(root);
await import(${JSON.stringify(SENTINEL)}).catch(() => {});
await done;
port1.close();
console.log(JSON.stringify(urls));
`;

describe("the modules a P2P-less verifier loads", () => {
  it("are neither libp2p's nor @noble/curves' nor zod's, and include the node's own", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD], {
      encoding: "utf8",
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(r.status, r.stderr).toBe(0);
    const urls = JSON.parse(r.stdout) as string[];
    expect(urls.some((u) => u.endsWith("/src/node/chain-node.ts"))).toBe(true);
    expect(urls.filter((u) => /node_modules\/(@libp2p|libp2p|@chainsafe)\//.test(u))).toEqual([]);
    expect(urls.filter((u) => /node_modules\/(@noble\/curves|zod)\//.test(u))).toEqual([]);
    expect(urls.filter((u) => /\/src\/p2p\//.test(u))).toEqual([]);
  }, 90_000);
});
