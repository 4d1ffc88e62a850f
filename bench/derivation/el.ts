/**
 * The simulated execution client for the derivation bench: in its own process (`supernode-devnet el`, as an
 * execution client runs in production; the node and the EL then use separate cores), or in this process with
 * DERIVATION_BENCH_INPROCESS=1.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type Hash, silentLogger, systemClock } from "supernode/core";
import { devnetBin } from "supernode-devnet";
import { forksFromRollupConfig, SimulatedExecutionClient } from "supernode-devnet/el";
import type { RollupConfig } from "supernode/protocol";
import { procCpuSec, procIoBytes } from "./metering.js";
import { GENESIS_TIME } from "./rollup-config.js";
import { userTxAlloc, userTxAllocRecord } from "./user-txs.js";

async function startElHere(cfg: RollupConfig, secret: Uint8Array): Promise<SimulatedExecutionClient> {
  return SimulatedExecutionClient.start(
    {
      variant: "a",
      chainId: 901n,
      genesis: {
        timestamp: GENESIS_TIME,
        gasLimit: 30_000_000n,
        alloc: userTxAllocRecord(),
        forks: forksFromRollupConfig(cfg),
      },
      http: { port: 0, api: ["eth"] },
      authrpc: { port: 0, jwtSecret: secret },
    },
    { logger: silentLogger, clock: systemClock },
  );
}

export interface ElHandle {
  readonly authUrl: string;
  readonly httpUrl: string;
  readonly genesisHash: Hash;
  /** CPU seconds the EL's own process has used (undefined when it runs in this process). */
  cpuSec(): number | undefined;
  /** Bytes the EL's own process has read and written (sockets included; undefined in this process or off Linux). */
  ioBytes(): { read: number; written: number } | undefined;
  stop(): Promise<void>;
}

const inProcess = (el: SimulatedExecutionClient): ElHandle => ({
  authUrl: el.authUrl,
  httpUrl: el.httpUrl,
  genesisHash: el.genesisHash,
  cpuSec: () => undefined,
  ioBytes: () => undefined,
  stop: () => el.stop(),
});

/**
 * The simulated EL as its own process (`supernode-devnet el`), as an execution client runs in production: the
 * node and the EL then use separate cores. Set DERIVATION_BENCH_INPROCESS=1 to run it in this process instead.
 */
async function startElProcess(secret: Uint8Array): Promise<ElHandle> {
  const dir = mkdtempSync(join(tmpdir(), "derivation-bench-"));
  const secretPath = join(dir, "jwt.hex");
  writeFileSync(secretPath, `0x${Buffer.from(secret).toString("hex")}\n`, { mode: 0o600 });
  // DERIVATION_BENCH_EL_NODE_ARGS: extra node flags for the EL process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
  const nodeArgs = (process.env.DERIVATION_BENCH_EL_NODE_ARGS ?? "").split(" ").filter((a) => a !== "");
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      devnetBin(),
      "el",
      "--variant",
      "a",
      "--chain-id",
      "901",
      "--http.port",
      "0",
      "--authrpc.port",
      "0",
      "--authrpc.jwtsecret",
      secretPath,
      "--genesis.time",
      String(GENESIS_TIME),
      "--forks",
      "regolith=0,canyon=0,delta=0,ecotone=0,fjord=0,granite=0,holocene=0,isthmus=0",
      ...userTxAlloc().flatMap((a) => ["--alloc", a]),
    ],
    { stdio: ["ignore", "pipe", "ignore", "ipc"] }, // ends with the bench, however it ends (endWithParent)
  );
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`devnet el exited (${code})`)));
  });
  const info = JSON.parse(line) as { authrpc: string; http: string; genesis: { hash: Hash } };
  return {
    authUrl: info.authrpc,
    httpUrl: info.http,
    genesisHash: info.genesis.hash,
    cpuSec: () => procCpuSec(child.pid),
    ioBytes: () => procIoBytes(child.pid),
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh simulated EL with the bench's forks (from `cfg`) and accounts, its Engine API behind `secret`. */
export async function startEl(cfg: RollupConfig, secret: Uint8Array): Promise<ElHandle> {
  if (process.env.DERIVATION_BENCH_INPROCESS === "1") return inProcess(await startElHere(cfg, secret));
  return startElProcess(secret);
}
