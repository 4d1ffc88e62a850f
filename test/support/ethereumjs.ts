/**
 * Test helper: a real Engine API execution client (@ethereumjs/client) on loopback, JWT-authenticated.
 * Post-merge genesis (Shanghai and Cancun at 0). Its sockets are forced onto 127.0.0.1 by a preload
 * (`loopback-only.mjs`), since its RLPx server otherwise binds 0.0.0.0; the same preload binds its ports to ports
 * the kernel picks and reports them (no free port is chosen here and handed over: another process could take it
 * first). `stop()` SIGKILLs the PID (a graceful exit takes ~8 s) and removes the data directory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export interface EthereumJsNode {
  readonly engineUrl: string;
  readonly rpcUrl: string;
  readonly jwtSecret: Uint8Array;
  readonly jwtPath: string;
  readonly chainId: number;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Placeholder port numbers on the client's command line: the preload binds each to a port the kernel picks (port 0)
 * and reports it (`loopback-only: port <placeholder> bound <port>`), so no port is chosen free and handed over.
 */
const RPC_PLACEHOLDER = 8545;
const ENGINE_PLACEHOLDER = 8551;
const P2P_PLACEHOLDER = 30303;

/** The port the preload reported for a placeholder, once the server is listening (accepts connections). */
function boundPort(out: string, placeholder: number): number | undefined {
  const m = new RegExp(`loopback-only: port ${placeholder} bound (\\d+)`).exec(out);
  return m === null ? undefined : Number(m[1]);
}

export const EJS_CHAIN_ID = 900001;
/** Funded in the genesis: anvil's first dev account. */
export const EJS_FUNDED = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

function genesis(): unknown {
  return {
    config: {
      chainId: EJS_CHAIN_ID,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      mergeNetsplitBlock: 0,
      terminalTotalDifficulty: 0,
      terminalTotalDifficultyPassed: true,
      shanghaiTime: 0,
      cancunTime: 0,
    },
    nonce: "0x0",
    timestamp: "0x0",
    extraData: "0x",
    gasLimit: "0x1c9c380",
    difficulty: "0x0",
    mixHash: `0x${"00".repeat(32)}`,
    coinbase: `0x${"00".repeat(20)}`,
    alloc: { [EJS_FUNDED.slice(2)]: { balance: "0x3635c9adc5dea00000" } },
    number: "0x0",
    gasUsed: "0x0",
    parentHash: `0x${"00".repeat(32)}`,
    baseFeePerGas: "0x3b9aca00",
  };
}

export async function startEthereumJs(opts: { startTimeoutMs?: number } = {}): Promise<EthereumJsNode> {
  const dir = mkdtempSync(join(tmpdir(), "ejs-"));
  const secret = randomBytes(32);
  const jwtPath = join(dir, "jwt.hex");
  writeFileSync(jwtPath, `0x${secret.toString("hex")}\n`);
  writeFileSync(join(dir, "genesis.json"), JSON.stringify(genesis()));
  const cli = resolve(process.cwd(), "node_modules/@ethereumjs/client/dist/esm/bin/cli.js");
  const preload = resolve(process.cwd(), "test/support/loopback-only.mjs");
  const args = [
    "--import",
    preload,
    cli,
    "--gethGenesis",
    join(dir, "genesis.json"),
    "--dataDir",
    join(dir, "data"),
    "--rpc",
    "--rpcAddr",
    "127.0.0.1",
    "--rpcPort",
    String(RPC_PLACEHOLDER),
    "--rpcEngine",
    "--rpcEngineAddr",
    "127.0.0.1",
    "--rpcEnginePort",
    String(ENGINE_PLACEHOLDER),
    "--rpcEngineAuth",
    "--jwtSecret",
    jwtPath,
    "--port",
    String(P2P_PLACEHOLDER),
    "--extIP",
    "127.0.0.1",
    "--discV4",
    "false",
    "--discDns",
    "false",
    "--maxPeers",
    "0",
    "--isSingleNode",
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LOOPBACK_ANY_PORTS: [RPC_PLACEHOLDER, ENGINE_PLACEHOLDER, P2P_PLACEHOLDER].join(",") },
  });
  let out = "";
  let rpcPort: number | undefined;
  let enginePort: number | undefined;
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  try {
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(
        () => rej(new Error(`ethereumjs did not start: ${out.slice(-800)}`)),
        opts.startTimeoutMs ?? 30_000,
      );
      const onData = (c: Buffer) => {
        out += c.toString();
        rpcPort ??= boundPort(out, RPC_PLACEHOLDER);
        enginePort ??= boundPort(out, ENGINE_PLACEHOLDER);
        if (rpcPort !== undefined && enginePort !== undefined && out.includes("Client started successfully")) {
          clearTimeout(timer);
          res();
        }
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.once("exit", (code) => {
        clearTimeout(timer);
        rej(new Error(`ethereumjs exited (${code}): ${out.slice(-800)}`));
      });
    });
  } catch (err) {
    kill();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  child.stdout?.removeAllListeners("data");
  child.stderr?.removeAllListeners("data");
  child.stdout?.resume();
  child.stderr?.resume();
  const exited = new Promise<void>((r) => {
    if (child.exitCode !== null || child.signalCode !== null) r();
    else child.once("exit", () => r());
  });
  return {
    engineUrl: `http://127.0.0.1:${enginePort as number}`,
    rpcUrl: `http://127.0.0.1:${rpcPort as number}`,
    jwtSecret: Uint8Array.from(secret),
    jwtPath,
    chainId: EJS_CHAIN_ID,
    pid: child.pid,
    async stop() {
      kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
