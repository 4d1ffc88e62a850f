/**
 * Which build of the node the derivation bench runs: the compiled `dist/` (the default: what operators run, built by
 * `npm ci` / `npm run build` and started by bin/supernode.js) or the TypeScript sources through tsx
 * (`DERIVATION_BENCH_CODE=src`). They differ in more than start-up: tsx compiles with esbuild's keepNames, which
 * wraps every named inner function in `__name(fn, "name")` (a property defined each time such a closure is
 * created), and esbuild and tsc emit different code for the same source. tsx leaves the `.js` files of `dist/`
 * untouched, so importing them from this TypeScript bench runs exactly what `node dist/…` runs.
 *
 * Everything the node under test touches comes from the chosen build: the node, its Engine API client, the error
 * classes the bench's L1 throws into it (an `instanceof` across two builds would fail), the logger and the clock.
 * The bench's own setup (batch encoding, batcher signing) stays on the sources; it runs before any window.
 *
 * `dist/` is rebuilt (`tsc -p tsconfig.build.json`) when a file under `src/` is newer than `dist/cli/main.js` (the
 * rule of bin/supernode.js); a failed build stops the bench rather than measuring stale code.
 *
 * For an A/B pair of code changes, `DERIVATION_BENCH_CODE=/abs/path/to/other/dist` runs another compiled build
 * (e.g. a copy of `dist/` made before the change, in a folder with a `package.json` of `"type": "module"` and the
 * repository's `node_modules` beside it) with this bench, taken as it is.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as Core from "supernode/core";
import type * as Node from "supernode/node";
import { note } from "../harness.js";

export interface NodeCode {
  /** "dist" (compiled by tsc), "src" (TypeScript through tsx) or the absolute path of another compiled build. */
  readonly kind: string;
  readonly createChainNode: typeof Node.createChainNode;
  readonly EngineRpcClient: typeof Node.EngineRpcClient;
  readonly TemporaryError: typeof Core.TemporaryError;
  readonly silentLogger: typeof Core.silentLogger;
  readonly systemClock: typeof Core.systemClock;
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Newest modification time (ms) of a file under `dir`. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}

/** Whether `dist/` is missing or older than a file under `src/`. */
export function distStale(): boolean {
  const marker = join(root, "dist", "cli", "main.js");
  return !existsSync(marker) || newestMtime(join(root, "src")) > statSync(marker).mtimeMs;
}

function buildDist(): void {
  note("derivation bench: dist/ is missing or older than src/; compiling it (tsc -p tsconfig.build.json)");
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const r = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (r.status !== 0 || distStale())
    throw new Error("derivation bench: compiling dist/ failed; not measuring stale code");
}

/** Loads the node's code from the build named by DERIVATION_BENCH_CODE ("dist", the default, or "src"). */
export async function loadNodeCode(): Promise<NodeCode> {
  const kind = process.env.DERIVATION_BENCH_CODE ?? "dist";
  const other = isAbsolute(kind) && existsSync(join(kind, "cli", "main.js"));
  if (kind !== "dist" && kind !== "src" && !other)
    throw new Error(`DERIVATION_BENCH_CODE: "dist", "src" or the absolute path of a compiled build, not "${kind}"`);
  if (kind === "dist" && distStale()) buildDist();
  // The sources by their `.js` names, as the rest of the bench imports them (tsx maps them to the `.ts` files): the
  // same module instances, not a second copy.
  const base = other ? kind : join(root, kind);
  const load = <T>(path: string): Promise<T> => import(pathToFileURL(join(base, `${path}.js`)).href) as Promise<T>;
  // Through the build's public exports (`supernode/node`, `supernode/core`), as any program hosting a node.
  const [node, core] = await Promise.all([load<typeof Node>("public/node"), load<typeof Core>("public/core")]);
  return {
    kind,
    createChainNode: node.createChainNode,
    EngineRpcClient: node.EngineRpcClient,
    TemporaryError: core.TemporaryError,
    silentLogger: core.silentLogger,
    systemClock: core.systemClock,
  };
}
