/**
 * The Go reference implementations for the differential tests (test/reference/): where their binaries are, how to
 * run one on loopback and end it, and the figure lines that `npm run reference` prints.
 *
 * A binary is found through its environment variable (`SUPERNODE_REF_OP_NODE`, `SUPERNODE_REF_OP_BATCHER`,
 * `SUPERNODE_REF_OP_SUPERNODE`, `SUPERNODE_REF_GETH`) or in `reference/bin/` (what `scripts/build-reference.sh`
 * builds). Without them the tests skip with the reason printed, unless `SUPERNODE_REF_EXPECTED=1` (set by `.ci/run`
 * after it built them), where a missing binary is a failure; proxyd (`SUPERNODE_REF_PROXYD`), which nothing here
 * builds, only ever skips.
 */
import { processGuardPath } from "supernode-devnet";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export type ReferenceBinary = "op-node" | "op-batcher" | "op-supernode" | "geth" | "proxyd";

const ENV: Record<ReferenceBinary, string> = {
  "op-node": "SUPERNODE_REF_OP_NODE",
  "op-batcher": "SUPERNODE_REF_OP_BATCHER",
  "op-supernode": "SUPERNODE_REF_OP_SUPERNODE",
  geth: "SUPERNODE_REF_GETH",
  proxyd: "SUPERNODE_REF_PROXYD",
};

/**
 * Binaries that `scripts/build-reference.sh` cannot build (the module proxy refuses proxyd's module): CI never has
 * them, so their absence skips a test even with `SUPERNODE_REF_EXPECTED=1`.
 */
const NOT_BUILT: ReadonlySet<ReferenceBinary> = new Set(["proxyd"]);

/** The path of a reference binary, or undefined when neither its variable nor `reference/bin/<name>` gives one. */
export function referenceBinary(name: ReferenceBinary): string | undefined {
  const fromEnv = process.env[ENV[name]];
  if (fromEnv !== undefined && fromEnv !== "") return existsSync(fromEnv) ? fromEnv : undefined;
  const built = resolve("reference/bin", name);
  return existsSync(built) ? built : undefined;
}

/**
 * Why a test needing `names` cannot run (undefined when it can). Prints the reason; throws when the binaries are
 * expected (`SUPERNODE_REF_EXPECTED=1`).
 */
export function referenceSkipReason(test: string, names: readonly ReferenceBinary[]): string | undefined {
  const missing = names.filter((n) => referenceBinary(n) === undefined);
  if (missing.length === 0) return undefined;
  const built = missing.filter((n) => !NOT_BUILT.has(n));
  const how = built.length === missing.length ? " or run scripts/build-reference.sh" : "";
  const reason = `${test}: skipped, no ${missing.join(", ")} (set ${missing.map((n) => ENV[n]).join(", ")}${how})`;
  if (process.env.SUPERNODE_REF_EXPECTED === "1" && built.length > 0)
    throw new Error(`${reason}; but SUPERNODE_REF_EXPECTED=1`);
  process.stderr.write(`${reason}\n`);
  return reason;
}

/** A free loopback TCP port (bound and released: the reference binaries take ports as flags). */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => (typeof a === "object" && a !== null ? res(a.port) : rej(new Error("no port"))));
    });
  });
}

export interface RefProcess {
  /** The started process: the binary itself with `ipc`, else the guard that runs it (process-guard.mjs). */
  readonly child: ChildProcess;
  /** The binary's own PID (for /proc readings), once known. */
  binPid(): Promise<number>;
  readonly logPath: string;
  /** Ends the process group (SIGTERM, then SIGKILL after 5 s); resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Starts `bin args` in a process group of its own, output to `logPath`, tied to this process so that it ends with
 * this one however this one ends (also `kill -9`): with `ipc` (a Node child such as our supernode) by its own IPC
 * channel, else under the devnet's process guard, which holds that channel and kills the binary when it closes.
 */
export function startReference(bin: string, args: readonly string[], logPath: string, ipc = false): RefProcess {
  const out = openSync(logPath, "a");
  const [file, argv] = ipc ? [bin, args] : [process.execPath, [processGuardPath(), bin, ...args]];
  const child = spawn(file, argv, { detached: true, stdio: ["ignore", out, out, "ipc"] });
  const exited = new Promise<void>((res) => child.once("exit", () => res()));
  const binPid = ipc
    ? Promise.resolve(child.pid as number)
    : new Promise<number>((res, rej) => {
        child.once("message", (m: { pid?: number }) => (m.pid === undefined ? rej(new Error("no pid")) : res(m.pid)));
        void exited.then(() => rej(new Error(`${bin} exited before it started`)));
      });
  binPid.catch(() => {});
  return {
    child,
    binPid: () => binPid,
    logPath,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      const pid = child.pid;
      process.kill(-pid, "SIGTERM");
      const timer = setTimeout(() => {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Starts the reference binary `name` (which must exist: see referenceSkipReason), its log `<dir>/<name>.log`. */
export function startReferenceBinary(name: ReferenceBinary, args: readonly string[], dir: string): RefProcess {
  return startReference(referenceBinary(name) as string, args, join(dir, `${name}.log`));
}

/** Runs `bin args` to completion; rejects with its output when it fails. */
export async function runReference(bin: string, args: readonly string[], logPath: string): Promise<void> {
  const p = startReference(bin, args, logPath);
  const code = await new Promise<number | null>((res) => p.child.once("exit", (c) => res(c)));
  if (code !== 0) throw new Error(`${bin} ${args.join(" ")} exited with ${code}; see ${logPath}`);
}

/** One figure line of `npm run reference`, in the benchmarks' format. */
export function printReferenceFigure(
  figure: string,
  value: number,
  unit: string,
  extra: Record<string, unknown> = {},
): void {
  process.stdout.write(`${JSON.stringify({ bench: "reference", figure, value, unit, ...extra })}\n`);
}

export const referenceLog = (dir: string, name: string): string => join(dir, `${name}.log`);

/**
 * Runs `body` with a temporary directory (`sn-ref-<name>-…`) and a list of stops, run last to first at the end; an
 * error names the case and the directory; the directory (logs) is kept with REFERENCE_KEEP=1.
 */
export async function inReferenceRig<T>(
  name: string,
  body: (dir: string, stops: Array<() => Promise<void>>) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `sn-ref-${name}-`));
  const stops: Array<() => Promise<void>> = [];
  try {
    return await body(dir, stops);
  } catch (err) {
    throw new Error(`${(err as Error).message} (${name}; logs in ${dir})`);
  } finally {
    for (const s of stops.reverse()) await s().catch(() => {});
    if (process.env.REFERENCE_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
  }
}

/** What a supernode process (bin/supernode.js) ran: the compiled dist/, or the sources through tsx (its log says). */
export type SupernodeFrom = "dist" | "sources";
export const supernodeFrom = (logPath: string): SupernodeFrom =>
  readFileSync(logPath, "utf8").includes("running the sources") ? "sources" : "dist";

/**
 * A cost figure (CPU, RSS) of a supernode process against a reference implementation. From the sources (dist/
 * older than src/) the process also ran tsx's transpiler, so the figure would measure tsx: its value is withheld
 * (null) with the reason, never printed inflated. `npm run reference` builds dist/ first.
 */
export function printCostFigure(
  figure: string,
  ratio: number,
  from: SupernodeFrom,
  extra: Record<string, unknown> = {},
): void {
  const withheld = "the supernode ran from src/ through tsx (dist/ older than src/): run npm run build";
  const value = from === "dist" ? { value: ratio } : { value: null, withheld };
  const line = { ...extra, bench: "reference", figure, ...value, unit: "ratio", supernode_from: from };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** JSON-RPC over HTTP, the result or a thrown error naming the method. */
export async function jsonRpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result as T;
}

/** Polls `fn` every 200 ms until it yields a value; throws after `timeoutMs` naming `what`. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface OpGeth extends RefProcess {
  readonly httpUrl: string;
  readonly authUrl: string;
}

/**
 * `geth init` from `genesisPath` into `datadir` (a no-op on a datadir it initialised before), then op-geth on
 * loopback (archive, no discovery). Without `peers` no devp2p peers; with it up to that many, added through its
 * `admin_addPeer` (`connectOpGeth`), e.g. to EL-sync. Its devp2p listens on 127.0.0.1 only.
 */
export async function startOpGeth(o: {
  geth: string;
  datadir: string;
  genesisPath: string;
  jwtPath: string;
  logDir: string;
  name: string;
  peers?: number;
  /** Its HTTP and Engine API ports (default free ones): a restart keeps its URLs. */
  ports?: { http: number; auth: number };
}): Promise<OpGeth> {
  const log = referenceLog(o.logDir, o.name);
  await runReference(o.geth, ["init", "--datadir", o.datadir, "--state.scheme", "hash", o.genesisPath], log);
  const http = o.ports?.http ?? (await freePort());
  const auth = o.ports?.auth ?? (await freePort());
  // geth has no flag for the devp2p listening address: its TOML config file sets it (loopback only).
  const toml = join(o.logDir, `${o.name}.toml`);
  const listen = `127.0.0.1:${o.peers === undefined ? 0 : await freePort()}`;
  writeFileSync(toml, `[Node.P2P]\nListenAddr = "${listen}"\nNoDiscovery = true\nMaxPeers = ${o.peers ?? 0}\n`);
  const p = startReference(
    o.geth,
    [
      "--datadir",
      o.datadir,
      "--http",
      "--http.addr",
      "127.0.0.1",
      "--http.port",
      String(http),
      "--http.api",
      o.peers === undefined ? "eth,net,web3,debug,txpool" : "eth,net,web3,debug,txpool,admin",
      "--authrpc.addr",
      "127.0.0.1",
      "--authrpc.port",
      String(auth),
      "--authrpc.jwtsecret",
      o.jwtPath,
      "--config",
      toml,
      "--nat",
      "extip:127.0.0.1",
      "--ipcdisable",
      "--syncmode",
      "full",
      "--gcmode",
      "archive",
      "--state.scheme",
      "hash",
      "--rollup.disabletxpoolgossip",
      "--verbosity",
      "3",
    ],
    log,
  );
  const httpUrl = `http://127.0.0.1:${http}`;
  try {
    await until(`${o.name} to answer eth_chainId`, () => jsonRpc<string>(httpUrl, "eth_chainId"), 60_000);
  } catch (err) {
    await p.stop();
    throw err;
  }
  return { ...p, httpUrl, authUrl: `http://127.0.0.1:${auth}` };
}

/** Makes `from` dial `to` over devp2p (both started with `peers`); resolves once `from` lists it as a peer. */
export async function connectOpGeth(from: OpGeth, to: OpGeth): Promise<void> {
  const info = await jsonRpc<{ enode: string; id: string }>(to.httpUrl, "admin_nodeInfo");
  await jsonRpc<boolean>(from.httpUrl, "admin_addPeer", [info.enode]);
  await until(
    "op-geth devp2p peering",
    async () => {
      const peers = await jsonRpc<Array<{ id: string }>>(from.httpUrl, "admin_peers");
      return peers.some((p) => p.id === info.id) ? true : undefined;
    },
    30_000,
  );
}
