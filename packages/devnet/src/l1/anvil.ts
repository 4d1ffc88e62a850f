/**
 * Anvil process manager: the devnet L1. Starts the `anvil` binary shipped by `@foundry-rs/anvil` on a dynamic
 * loopback port, reads the port from its "Listening on" line, and offers the JSON-RPC helpers the devnet needs
 * (mine, reorg, snapshot/revert, setCode, setBalance). Anvil serves the beacon `blobs` endpoint on the same port.
 */
import { processGuardPath } from "../process-guard.js";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type Address, type Hash, type Hex, type Logger, silentLogger, toQuantity } from "supernode/core";
import { HttpRpcClient } from "supernode/json-rpc";

export interface AnvilOptions {
  /** L1 chain id (default 900). */
  readonly chainId?: number;
  /** Interval mining in seconds; 0 = mine on every transaction (automine). Default 2. */
  readonly blockTimeSec?: number;
  /** Slots per epoch: `safe` = latest − epoch, `finalized` = latest − 2·epoch. Default 2. */
  readonly slotsInAnEpoch?: number;
  /** EVM hardfork (default `prague`). */
  readonly hardfork?: string;
  /** Genesis timestamp (default: anvil's wall clock). */
  readonly timestamp?: number;
  /** Extra command-line arguments. */
  readonly extraArgs?: readonly string[];
  /** Binary path (default: resolved from `@foundry-rs/anvil`, or `$ANVIL_BIN`). */
  readonly binary?: string;
  /** How long to wait for "Listening on" (default 20 s). */
  readonly startTimeoutMs?: number;
  readonly logger?: Logger;
}

/**
 * Finds the anvil executable: `$ANVIL_BIN`, then the platform package that `@foundry-rs/anvil` depends on
 * (`@foundry-rs/anvil-<platform>-<arch>/bin/anvil`), then `node_modules/.bin/anvil` next to the package.
 * The platform binary is preferred because the `.bin` shim is a Node wrapper that would outlive a kill.
 */
export function resolveAnvilBinary(): string {
  const fromEnv = process.env.ANVIL_BIN;
  if (fromEnv !== undefined && fromEnv !== "" && existsSync(fromEnv)) return fromEnv;
  const require = createRequire(import.meta.url);
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const exe = process.platform === "win32" ? "anvil.exe" : "anvil";
  const candidates: string[] = [];
  try {
    const pkg = require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`);
    candidates.push(join(dirname(pkg), "bin", exe));
  } catch {
    // platform package not resolvable from here; try the wrapper package's neighbourhood
  }
  try {
    const wrapper = dirname(require.resolve("@foundry-rs/anvil/package.json"));
    candidates.push(join(wrapper, "..", `anvil-${process.platform}-${arch}`, "bin", exe));
    candidates.push(join(wrapper, "..", "..", ".bin", "anvil"));
  } catch {
    // wrapper package absent
  }
  for (const c of candidates) if (existsSync(c)) return c;
  throw new Error(
    `anvil binary not found (looked in: ${candidates.join(", ") || "nothing resolvable"}); set ANVIL_BIN`,
  );
}

/** A running anvil. `rpcUrl` serves JSON-RPC; `beaconUrl` (same port) serves `/eth/v1/beacon/blobs/{block}`. */
export class Anvil {
  readonly rpc: HttpRpcClient;
  private exited = false;
  private readonly killOnExit: () => void;
  private readonly exitPromise: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly chainId: number,
    readonly blockTimeSec: number,
    readonly slotsInAnEpoch: number,
  ) {
    this.rpc = new HttpRpcClient({ url: this.rpcUrl, timeoutMs: 30_000 });
    // Never let anvil outlive this process, even when it exits without calling stop().
    this.killOnExit = () => {
      if (!this.exited) this.child.kill("SIGKILL");
    };
    process.once("exit", this.killOnExit);
    this.exitPromise = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        this.exited = true;
        resolve();
        return;
      }
      child.once("exit", () => {
        this.exited = true;
        resolve();
      });
    });
  }

  get rpcUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get beaconUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(opts: AnvilOptions = {}): Promise<Anvil> {
    const log = (opts.logger ?? silentLogger).child({ component: "anvil" });
    const chainId = opts.chainId ?? 900;
    const blockTime = opts.blockTimeSec ?? 2;
    const slots = opts.slotsInAnEpoch ?? 2;
    const args = [
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--chain-id",
      String(chainId),
      "--slots-in-an-epoch",
      String(slots),
      "--hardfork",
      opts.hardfork ?? "prague",
    ];
    if (blockTime > 0) args.push("--block-time", String(blockTime));
    if (opts.timestamp !== undefined) args.push("--timestamp", String(opts.timestamp));
    args.push(...(opts.extraArgs ?? []));
    const bin = opts.binary ?? resolveAnvilBinary();
    // Under a small guard that kills it when this process ends, however it ends (process-guard.mjs): an orphaned
    // anvil would keep mining and hold its port. In a process group of its own, so that a Ctrl-C in the terminal
    // reaches only the devnet, which stops the L1 last (after the batchers and clients that still read it).
    const guard = processGuardPath();
    const child = spawn(process.execPath, [guard, bin, ...args], {
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      detached: true,
    });
    const port = await new Promise<number>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(
          new Error(`anvil did not report its port within ${opts.startTimeoutMs ?? 20_000} ms: ${out.slice(-500)}`),
        );
      }, opts.startTimeoutMs ?? 20_000);
      const onData = (chunk: Buffer): void => {
        out += chunk.toString("utf8");
        const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(out);
        if (m?.[1] !== undefined) {
          clearTimeout(timer);
          child.stdout?.off("data", onData);
          // keep draining so the pipe never fills
          child.stdout?.on("data", () => {});
          resolve(Number(m[1]));
        }
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", (c: Buffer) => {
        out += c.toString("utf8");
      });
      child.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`anvil exited before listening (code ${code}, signal ${signal}): ${out.slice(-500)}`));
      });
    });
    log.info({ port, chainId, blockTime, pid: child.pid }, "anvil started");
    return new Anvil(child, port, chainId, blockTime, slots);
  }

  /** Kills the process (SIGTERM, then SIGKILL after 3 s) and waits for it to exit. Idempotent. */
  async stop(): Promise<void> {
    if (this.exited) {
      process.off("exit", this.killOnExit);
      return;
    }
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => {
      if (!this.exited) this.child.kill("SIGKILL");
    }, 3000);
    await this.exitPromise;
    clearTimeout(timer);
    process.off("exit", this.killOnExit);
  }

  async blockNumber(): Promise<number> {
    return Number(BigInt(await this.rpc.call<Hex>("eth_blockNumber", [])));
  }

  /** The block at a tag or number (header only). */
  async getBlock(tag: number | "latest" | "safe" | "finalized" | "earliest"): Promise<RpcBlockHeader> {
    const id = typeof tag === "number" ? toQuantity(tag) : tag;
    const b = await this.rpc.call<RpcBlockHeader | null>("eth_getBlockByNumber", [id, false]);
    if (b === null) throw new Error(`L1 block ${String(tag)} not found`);
    return b;
  }

  /** Mines `blocks` blocks now (`anvil_mine`). */
  async mine(blocks = 1): Promise<void> {
    await this.rpc.call("anvil_mine", [toQuantity(blocks)]);
  }

  /** Replaces the last `depth` blocks with new ones (`anvil_reorg`); `txs` are `[signedRawTx, blockOffset]` pairs. */
  async reorg(depth: number, txs: readonly (readonly [Hex, number])[] = []): Promise<void> {
    await this.rpc.call("anvil_reorg", [depth, txs]);
  }

  /** Removes the last `depth` blocks (`anvil_rollback`). */
  async rollback(depth: number): Promise<void> {
    await this.rpc.call("anvil_rollback", [depth]);
  }

  async snapshot(): Promise<Hex> {
    return this.rpc.call<Hex>("evm_snapshot", []);
  }

  async revert(id: Hex): Promise<boolean> {
    return this.rpc.call<boolean>("evm_revert", [id]);
  }

  async setCode(address: Address, code: Hex): Promise<void> {
    await this.rpc.call("anvil_setCode", [address, code]);
  }

  async setBalance(address: Address, wei: bigint): Promise<void> {
    await this.rpc.call("anvil_setBalance", [address, toQuantity(wei)]);
  }

  async getCode(address: Address): Promise<Hex> {
    return this.rpc.call<Hex>("eth_getCode", [address, "latest"]);
  }

  /** Turns interval mining on (`seconds` > 0) or off (0) at runtime. */
  async setIntervalMining(seconds: number): Promise<void> {
    await this.rpc.call("evm_setIntervalMining", [seconds]);
  }

  async setAutomine(on: boolean): Promise<void> {
    await this.rpc.call("evm_setAutomine", [on]);
  }

  /** Blobs of an L1 block through the beacon endpoint (`block` = EL block number or hash). */
  async beaconBlobs(block: number | Hash, versionedHashes: readonly Hash[] = []): Promise<Hex[]> {
    const q = versionedHashes.map((h) => `versioned_hashes=${h}`).join("&");
    const url = `${this.beaconUrl}/eth/v1/beacon/blobs/${block}${q === "" ? "" : `?${q}`}`;
    const res = await fetch(url, { headers: { accept: "application/json" } });
    if (!res.ok) throw new Error(`beacon blobs ${block}: HTTP ${res.status}`);
    const body = (await res.json()) as { data: Hex[] };
    return body.data;
  }
}

/** The header fields of an L1 block as returned by `eth_getBlockByNumber(_, false)`. */
export interface RpcBlockHeader {
  readonly hash: Hash;
  readonly number: Hex;
  readonly parentHash: Hash;
  readonly timestamp: Hex;
  readonly baseFeePerGas?: Hex;
  readonly excessBlobGas?: Hex;
  readonly transactions: readonly (Hash | Record<string, unknown>)[];
}
