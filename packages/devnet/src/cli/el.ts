import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { type Address, type Logger, systemClock } from "supernode/core";
import { type ElForks, SimulatedExecutionClient, type SimulatedElOptions, parseJwtSecret } from "../el/index.js";
import { DEFAULT_DEVNET_FORKS } from "../config.js";
import { createLogger, installSignalHandlers } from "supernode";
import { FORKS } from "supernode/protocol";

const FORK_NAMES: readonly string[] = FORKS;
/** Default schedule: the devnet's forks (every fork up to Jovian) active at genesis. */
const DEFAULT_FORKS = DEFAULT_DEVNET_FORKS.map((f) => `${f}=0`).join(",");

export interface DevnetElDeps {
  readonly stdout?: { write(s: string): unknown };
  /** Stops the client when aborted (default: SIGINT/SIGTERM). */
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
  /** Called once the servers listen (tests). */
  readonly onStarted?: (el: SimulatedExecutionClient) => void;
}

function port(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("not a port number");
  return n;
}

function nonNegInt(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError("not a non-negative integer");
  return n;
}

function bigintArg(v: string): bigint {
  try {
    const b = BigInt(v);
    if (b < 0n) throw new Error();
    return b;
  } catch {
    throw new InvalidArgumentError("not a non-negative integer");
  }
}

/** Parses `canyon=0,ecotone=1700000000` (times relative to nothing: absolute L2 timestamps, 0 = genesis). */
export function parseForks(spec: string): ElForks {
  const out: Record<string, number> = {};
  for (const part of spec
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")) {
    const [name, time] = part.split("=");
    if (name === undefined || !FORK_NAMES.includes(name) || time === undefined || !/^\d+$/.test(time))
      throw new InvalidArgumentError(
        `bad fork entry "${part}" (want <fork>=<timestamp>, forks: ${FORK_NAMES.join(", ")})`,
      );
    out[name] = Number(time);
  }
  return out as ElForks;
}

/** Parses `0xaddr=wei` balance entries. */
function parseAlloc(entries: readonly string[]): Record<string, bigint> {
  const out: Record<string, bigint> = {};
  for (const e of entries) {
    const [addr, bal] = e.split("=");
    if (addr === undefined || !/^0x[0-9a-fA-F]{40}$/.test(addr) || bal === undefined)
      throw new InvalidArgumentError(`bad --alloc entry "${e}" (want 0x<address>=<wei>)`);
    out[addr.toLowerCase() as Address] = bigintArg(bal);
  }
  return out;
}

/** Reads the JWT secret file, creating it (32 random bytes, hex, mode 0600) when absent — as execution clients do. */
export function loadOrCreateJwtSecret(path: string): Uint8Array {
  if (existsSync(path)) return parseJwtSecret(readFileSync(path, "utf8"));
  const secret = new Uint8Array(randomBytes(32));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `0x${Buffer.from(secret).toString("hex")}\n`, { mode: 0o600 });
  return secret;
}

interface RawOpts {
  variant: "a" | "b";
  chainId: bigint;
  "http.addr": string;
  "http.port": number;
  "http.api": string;
  "http.corsdomain"?: string;
  ws?: boolean;
  "ws.addr": string;
  "ws.port": number;
  "authrpc.addr": string;
  "authrpc.port": number;
  "authrpc.jwtsecret"?: string;
  "rollup.sequencerHttp"?: string;
  "rollup.sequencer-http"?: string;
  datadir?: string;
  "genesis.time"?: number;
  "genesis.gasLimit"?: bigint;
  "genesis.gas-limit"?: bigint;
  forks: string;
  alloc: string[];
}

/** Turns the parsed options into the client's start options (exported for tests). */
export function elOptionsFrom(o: RawOpts, nowSec: number): SimulatedElOptions {
  const datadir = o.datadir;
  const jwtPath = o["authrpc.jwtsecret"] ?? (datadir === undefined ? undefined : join(datadir, "jwt.hex"));
  if (jwtPath === undefined) throw new InvalidArgumentError("--authrpc.jwtsecret (or --datadir) is required");
  const sequencer = o["rollup.sequencer-http"] ?? o["rollup.sequencerHttp"];
  const api = o["http.api"]
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return {
    variant: o.variant,
    chainId: o.chainId,
    genesis: {
      timestamp: o["genesis.time"] ?? nowSec,
      gasLimit: o["genesis.gas-limit"] ?? o["genesis.gasLimit"] ?? 30_000_000n,
      forks: parseForks(o.forks),
      alloc: parseAlloc(o.alloc),
    },
    http: {
      addr: o["http.addr"],
      port: o["http.port"],
      api,
      ...(o["http.corsdomain"] === undefined ? {} : { corsDomain: o["http.corsdomain"].split(",") }),
    },
    ...(o.ws ? { ws: { addr: o["ws.addr"], port: o["ws.port"] } } : {}),
    authrpc: { addr: o["authrpc.addr"], port: o["authrpc.port"], jwtSecret: loadOrCreateJwtSecret(jwtPath) },
    ...(sequencer === undefined ? {} : { sequencerHttp: sequencer }),
    ...(datadir === undefined ? {} : { datadir }),
  };
}

/**
 * Registers `supernode-devnet el`: one standalone simulated execution client (variant A or B) with the
 * execution-client startup options of the specification, for pointing a rollup node at it.
 */
export function registerDevnetElCommand(devnet: Command, deps: DevnetElDeps = {}): void {
  devnet
    .command("el")
    .description("run one simulated execution client (variant a = current, b = legacy) until interrupted")
    .addOption(new Option("--variant <variant>", "execution-client variant").choices(["a", "b"]).default("b"))
    .requiredOption("--chain-id <id>", "L2 chain ID", bigintArg)
    .option("--chain <name>", "accepted for compatibility; the genesis comes from --genesis.* and --forks")
    .option(
      "--datadir <dir>",
      "data directory: the chain is kept in <datadir>/chain.jsonl and resumed on restart; the JWT secret defaults to <datadir>/jwt.hex",
    )
    .option("--http", "accepted for compatibility (the HTTP server always runs)")
    .option("--http.addr <addr>", "HTTP listen address", "127.0.0.1")
    .option("--http.port <port>", "HTTP port (0 = dynamic)", port, 8545)
    .option("--http.api <list>", "namespaces served over HTTP: eth,net,web3,txpool,debug,trace", "eth,net,web3")
    .option("--http.corsdomain <list>", "origins browsers may call the HTTP port from, comma-separated (* = any)")
    .option("--ws", "serve JSON-RPC and subscriptions over WebSocket")
    .option("--ws.addr <addr>", "WebSocket listen address", "127.0.0.1")
    .option("--ws.port <port>", "WebSocket port (0 = dynamic)", port, 8546)
    .option("--ws.api <list>", "accepted; WebSocket serves the --http.api namespaces")
    .option("--authrpc.addr <addr>", "Engine API listen address", "127.0.0.1")
    .option("--authrpc.port <port>", "Engine API port (0 = dynamic)", port, 8551)
    .option("--authrpc.jwtsecret <file>", "Engine API JWT secret file (32 bytes hex; created when missing)")
    .option("--rollup.sequencer-http <url>", "forward eth_sendRawTransaction to this sequencer")
    .option("--rollup.disable-tx-pool-gossip", "accepted for compatibility (no gossip here)")
    .option("--genesis.time <seconds>", "genesis timestamp (default: now)", nonNegInt)
    .option("--genesis.gas-limit <gas>", "genesis gas limit", bigintArg)
    .option("--forks <list>", "fork activation times, <fork>=<timestamp>,…", DEFAULT_FORKS)
    .option(
      "--alloc <entry>",
      "genesis balance 0x<address>=<wei> (repeatable)",
      (v: string, acc: string[]) => [...acc, v],
      [],
    )
    .action(async (raw: RawOpts) => {
      const out = deps.stdout ?? process.stdout;
      const logger =
        deps.logger ?? createLogger({ level: "info", format: "text", color: false, destination: process.stderr });
      const opts = elOptionsFrom(raw, Math.floor(Date.now() / 1000));
      const el = await SimulatedExecutionClient.start(opts, { logger, clock: systemClock });
      out.write(
        `${JSON.stringify({
          variant: el.variant,
          chainId: opts.chainId.toString(),
          http: el.httpUrl,
          authrpc: el.authUrl,
          ws: el.wsUrl ?? null,
          genesis: el.genesisBlock,
        })}\n`,
      );
      deps.onStarted?.(el);
      let signal = deps.signal;
      let uninstall: (() => void) | undefined;
      if (signal === undefined) {
        const ac = new AbortController();
        uninstall = installSignalHandlers(ac);
        signal = ac.signal;
      }
      if (!signal.aborted)
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      uninstall?.();
      await el.stop();
    });
}
