import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { createLogger, installSignalHandlers, LOG_LEVELS, type LogLevel } from "supernode";
import { FORKS, type Fork, forkTime, type RollupConfig } from "supernode/protocol";
import type { Logger } from "supernode/core";
import type { Devnet } from "../devnet.js";
import { MAX_DEVNET_CHAINS } from "../l1/dev-accounts.js";
import { type ChildDevnet, reportChildDevnet, startChildDevnet } from "./child.js";
import { registerDevnetElCommand } from "./el.js";
import { interopLine, interopStatus } from "./interop.js";
import { dataModeProblem, describeForkOffsets, parseForkOffsets } from "./fork-offsets.js";
import { describeFollowers, type Followers, startFollowers } from "./followers.js";
import { DEMO_DEPOSIT_RECIPIENT, type DevnetSupernode, startDevnetSupernode } from "./supernode.js";
import { rpcCall } from "../rpc-call.js";
import { DEFAULT_EL_PORT_BASE } from "../el-ports.js";
import { describeDevAccounts, describeExecutionClients } from "./developer.js";

interface DevnetArgs {
  dir?: string;
  rpcPort: number;
  metricsPort: number;
  elPort: number;
  l1BlockTime: number;
  l1SlotsInAnEpoch: number;
  l2BlockTime: number;
  dataMode: "calldata" | "blobs";
  forkOffsets?: Partial<Record<Fork, number | undefined>>;
  logLevel: LogLevel;
  keep?: boolean;
  chains: number;
  supernodeProcess: "same" | "child" | "external";
  followers: number;
  /** `--interop` / `--invalid-messages`: one dependency set, Interop active, cross-chain traffic. */
  interop?: { invalidMessages: boolean };
}

function chainCount(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > MAX_DEVNET_CHAINS) {
    throw new InvalidArgumentError(`expected an integer 1..${MAX_DEVNET_CHAINS}`);
  }
  return n;
}

function followerCount(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 16) throw new InvalidArgumentError("expected an integer 0..16");
  return n;
}

function slotsArg(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new InvalidArgumentError("expected an integer 1..1024");
  return n;
}

function intArg(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError("expected an integer 0..65535");
  return n;
}

const DEPOSIT_WEI = 10n ** 18n;

/**
 * The `supernode-devnet` program (`npm start` at the repository root): the whole local devnet with the supernode,
 * and `supernode-devnet el`, one simulated execution client.
 */
export function devnetProgram(): Command {
  const devnet = new Command("supernode-devnet")
    .description(
      "run a local devnet: anvil L1, chains 901 (variant A), 902 (variant B), … (--chains), the supernode, batchers",
    )
    .option("--dir <dir>", "directory for configs and state (default: a fresh temporary directory, removed on exit)")
    .option("--rpc.port <port>", "supernode JSON-RPC port on 127.0.0.1", intArg, 8545)
    .option("--metrics.port <port>", "metrics port on 127.0.0.1", intArg, 7300)
    .option(
      "--el.port <port>",
      "execution clients' ports from this base: chain 901 HTTP base+10, WebSocket base+11, Engine API base+12, " +
        "chain 902 base+20…; 0 = any free ports",
      intArg,
      DEFAULT_EL_PORT_BASE,
    )
    .option("--l1-block-time <s>", "L1 block time in seconds", intArg, 2)
    .option(
      "--l1-slots-in-an-epoch <n>",
      "L1 finality distance: anvil calls head − n safe and head − 2·n finalized (raise it to reorg deeply in tests)",
      slotsArg,
      2,
    )
    .option("--l2-block-time <s>", "L2 block time in seconds", intArg, 2)
    .addOption(
      new Option("--data-mode <mode>", "how batchers post data").choices(["calldata", "blobs"]).default("calldata"),
    )
    .option(
      "--fork-offsets <list>",
      "fork activation as seconds after L2 genesis, e.g. ecotone=20,isthmus=40 (unnamed forks follow the one " +
        "before; <fork>=never leaves it off; default: Regolith … Jovian at genesis)",
      parseForkOffsets,
    )
    .addOption(new Option("--log.level <level>", "supernode log level").choices([...LOG_LEVELS]).default("warn"))
    .option("--keep", "keep the temporary directory on exit")
    .option("--chains <n>", "number of L2 chains (ids 901, 902, …; variants A and B alternate)", chainCount, 2)
    .addOption(
      new Option(
        "--supernode-process <where>",
        "run the supernode in this process (same), in a child process of its own, apart from the devnet's " +
          "execution clients and batchers (child), or not at all: its arguments go to <dir>/supernode.json for one " +
          "started elsewhere, e.g. in a container (external)",
      )
        .choices(["same", "child", "external"])
        .default("same"),
    )
    .option(
      "--followers <n>",
      "also run n verifying supernodes (own processes, execution clients and data dirs; RPC on rpc.port + 1, + 2, …) " +
        "peered with the sequencing supernode over loopback P2P",
      followerCount,
      0,
    )
    .option(
      "--interop",
      "every chain in one dependency set with Interop active (at genesis, or at --fork-offsets lagoon=N) and a " +
        "valid cross-chain message in both directions every few blocks",
    )
    .option("--invalid-messages", "with --interop: also an invalid message every 20 blocks (implies --interop)")
    .action(async (raw: Record<string, unknown>) => {
      const args: DevnetArgs = {
        ...(typeof raw.dir === "string" ? { dir: raw.dir } : {}),
        rpcPort: raw["rpc.port"] as number,
        metricsPort: raw["metrics.port"] as number,
        elPort: raw["el.port"] as number,
        l1BlockTime: raw.l1BlockTime as number,
        l1SlotsInAnEpoch: raw.l1SlotsInAnEpoch as number,
        l2BlockTime: raw.l2BlockTime as number,
        dataMode: raw.dataMode as "calldata" | "blobs",
        ...(raw.forkOffsets === undefined
          ? {}
          : { forkOffsets: raw.forkOffsets as Partial<Record<Fork, number | undefined>> }),
        logLevel: raw["log.level"] as LogLevel,
        ...(raw.keep === true ? { keep: true } : {}),
        chains: raw.chains as number,
        supernodeProcess: raw.supernodeProcess as DevnetArgs["supernodeProcess"],
        followers: raw.followers as number,
        ...(raw.interop === true || raw.invalidMessages === true
          ? { interop: { invalidMessages: raw.invalidMessages === true } }
          : {}),
      };
      if (args.interop !== undefined && args.chains < 2)
        devnet.error("error: --interop needs --chains ≥ 2", { exitCode: 2 });
      if (args.supernodeProcess === "external" && args.followers > 0)
        devnet.error("error: --followers needs the devnet's own supernode (not --supernode-process external)", {
          exitCode: 2,
        });
      const problem = dataModeProblem(args.dataMode, args.forkOffsets);
      if (problem !== undefined) devnet.error(`error: ${problem}`, { exitCode: 2 });
      await runDevnetCommand(args);
    });
  registerDevnetElCommand(devnet);
  return devnet;
}

const VARIANT_B_NOTE =
  "variant B chains run the legacy execution client on purpose, to show both variants: the end-of-support " +
  "warning each supernode logs for them at start is expected";

async function runDevnetCommand(args: DevnetArgs): Promise<void> {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  const dir = args.dir ?? mkdtempSync(join(tmpdir(), "supernode-devnet-"));
  const logger = createLogger({ level: args.logLevel, format: "text", color: false, destination: process.stderr });
  const controller = new AbortController();
  const uninstall = installSignalHandlers(controller, {
    onFirst: () => out("\nstopping (Ctrl-C again to force)…"),
  });
  out(`starting devnet in ${dir} …`);
  const chains = Array.from({ length: args.chains }, (_, i) => ({
    chainId: BigInt(901 + i),
    variant: i % 2 === 0 ? ("a" as const) : ("b" as const),
  }));
  // Said before anything starts: every supernode of the devnet (the main one, each follower) warns about it.
  if (chains.some((c) => c.variant === "b")) out(VARIANT_B_NOTE);
  if (args.supernodeProcess !== "same") {
    await runChildDevnet(args, dir, chains, logger, controller.signal, out).finally(() => {
      uninstall();
      if (args.dir === undefined && args.keep !== true) rmSync(dir, { recursive: true, force: true });
      out("devnet stopped");
    });
    return;
  }
  let sn: DevnetSupernode | undefined;
  let followers: Followers | undefined;
  try {
    sn = await startDevnetSupernode(devnetOptions(args, dir, chains), { logger });
    followers = await maybeFollowers(args, dir, sn.devnet, sn.supernode.rpc.url, logger, controller.signal);
    printEndpoints(sn, out);
    if (followers !== undefined) describeFollowers(followers, out);
    if (!controller.signal.aborted) await live(sn, controller.signal, out, followers);
  } finally {
    uninstall();
    await followers?.stop();
    await sn?.stop();
    if (args.dir === undefined && args.keep !== true) rmSync(dir, { recursive: true, force: true });
    out("devnet stopped");
  }
}

/** The devnet's options from the command line, the same for the in-process and the child-process supernode. */
function devnetOptions(args: DevnetArgs, dir: string, chains: ReadonlyArray<{ chainId: bigint; variant: "a" | "b" }>) {
  return {
    dir,
    chains,
    rpcPort: args.rpcPort,
    metricsPort: args.metricsPort,
    elPortBase: args.elPort,
    l1BlockTimeSec: args.l1BlockTime,
    l1SlotsInAnEpoch: args.l1SlotsInAnEpoch,
    l2BlockTimeSec: args.l2BlockTime,
    dataMode: args.dataMode,
    ...(args.forkOffsets === undefined ? {} : { forkOffsets: args.forkOffsets }),
    logLevel: args.logLevel,
    p2p: true,
    ...(args.interop === undefined ? {} : { interop: args.interop }),
  };
}

/** `--followers n` (devnet-followers.ts); undefined for 0, or when Ctrl-C came while they were starting. */
function maybeFollowers(
  args: DevnetArgs,
  dir: string,
  devnet: Devnet,
  sequencerRpcUrl: string,
  logger: Logger,
  signal: AbortSignal,
) {
  if (args.followers === 0 || signal.aborted) return Promise.resolve(undefined);
  return startFollowers(
    devnet,
    {
      count: args.followers,
      dir,
      sequencerRpcUrl,
      rpcPort: args.rpcPort,
      metricsPort: args.metricsPort,
      logLevel: args.logLevel,
      signal,
    },
    logger,
  ).catch((err: unknown) => {
    if (signal.aborted) return undefined;
    throw err;
  });
}

async function runChildDevnet(
  args: DevnetArgs,
  dir: string,
  chains: ReadonlyArray<{ chainId: bigint; variant: "a" | "b" }>,
  logger: Logger,
  signal: AbortSignal,
  out: (s: string) => void,
): Promise<void> {
  let cd: ChildDevnet | undefined;
  let followers: Followers | undefined;
  try {
    const external = args.supernodeProcess === "external";
    // An external supernode gets no P2P: the sequencer's key would travel as an environment variable.
    const opts = { ...devnetOptions(args, dir, chains), ...(external ? { external, p2p: false } : {}) };
    cd = await startChildDevnet(opts, logger);
    followers = await maybeFollowers(args, dir, cd.devnet, cd.rpcUrl, logger, signal);
    out(`L1 (anvil)        ${cd.devnet.l1.rpcUrl}   beacon ${cd.devnet.l1.beaconUrl}`);
    const where = cd.supernode === undefined ? "not started here" : `pid ${cd.supernode.pid}`;
    out(`supernode         ${where}, RPC ${cd.rpcUrl}/<chain id>/ for chains 901…${900 + chains.length}`);
    out(`metrics           ${cd.metricsUrl}`);
    describeExecutionClients(cd.devnet, out);
    describeDevAccounts(out);
    if (cd.externalFile !== undefined) out(`external supernode: ${cd.externalFile}`);
    if (followers !== undefined) describeFollowers(followers, out);
    if (!signal.aborted) await reportChildDevnet(cd, signal, out, 4_000, followers?.statusLines);
  } finally {
    await followers?.stop();
    await cd?.stop();
  }
}

/** Fork times of a rollup config as seconds after its L2 genesis (0 = at genesis). */
function forkOffsetsOf(cfg: RollupConfig): Partial<Record<Fork, number | undefined>> {
  const out: Partial<Record<Fork, number | undefined>> = {};
  for (const f of FORKS) {
    const t = forkTime(cfg, f);
    out[f] = t === undefined ? undefined : Math.max(0, t - cfg.genesis.l2_time);
  }
  return out;
}

function printEndpoints(sn: DevnetSupernode, out: (s: string) => void): void {
  const rpc = sn.supernode.rpc.url;
  out("");
  out(`L1 (anvil)        ${sn.devnet.l1.rpcUrl}   beacon ${sn.devnet.l1.beaconUrl}`);
  for (const c of sn.devnet.chains) out(`chain ${c.chainId} (variant ${c.variant}) rollup RPC ${rpc}/${c.chainId}/`);
  describeExecutionClients(sn.devnet, out);
  const first = sn.devnet.chains[0];
  if (first !== undefined) out(`forks             ${describeForkOffsets(forkOffsetsOf(first.rollupConfig))}`);
  out(`supernode RPC     ${rpc}/   (superroot_atTimestamp, supernode_syncStatus, heartbeat_check; admin enabled)`);
  out(`metrics           ${sn.supernode.metricsServer?.url ?? "disabled"}`);
  out(`health            ${rpc}/healthz   ${rpc}/readyz   status page ${rpc}/status`);
  describeDevAccounts(out);
  out("");
  out(
    `try: curl -s -X POST -H 'content-type: application/json' --data '{"jsonrpc":"2.0","id":1,"method":"stack_syncStatus"}' ${rpc}/901/`,
  );
  out("");
}

async function l2Balance(url: string): Promise<bigint> {
  return BigInt((await rpcCall<string | null>(url, "eth_getBalance", [DEMO_DEPOSIT_RECIPIENT, "latest"])) ?? "0x0");
}

/** Makes one deposit per chain, then prints a line per chain every L2 block time until `signal` aborts. */
async function live(
  sn: DevnetSupernode,
  signal: AbortSignal,
  out: (s: string) => void,
  followers?: Followers,
): Promise<void> {
  const arrived = new Map<bigint, boolean>();
  for (const c of sn.devnet.chains) {
    try {
      const r = await sn.devnet.deposit(c.chainId, {
        to: DEMO_DEPOSIT_RECIPIENT,
        mint: DEPOSIT_WEI,
        value: DEPOSIT_WEI,
      });
      out(`deposit of 1 ETH to ${DEMO_DEPOSIT_RECIPIENT} on chain ${c.chainId} sent on L1 (tx ${r.transactionHash})`);
      arrived.set(c.chainId, false);
    } catch (err) {
      out(`deposit on chain ${c.chainId} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  while (!signal.aborted) {
    for (const c of sn.devnet.chains) {
      const sup = sn.supernode.supervisors.get(c.chainId.toString(10));
      const st = (await sup?.syncStatus())?.status;
      let deposit = "";
      if (arrived.get(c.chainId) === false) {
        const bal = await l2Balance(c.el.httpUrl).catch(() => 0n);
        if (bal >= DEPOSIT_WEI) {
          arrived.set(c.chainId, true);
          deposit = "  deposit arrived on L2 ✓";
        } else deposit = "  deposit pending";
      }
      out(
        `chain ${c.chainId} [${sup?.state ?? "?"}] unsafe ${st?.unsafe_l2.number ?? "-"}  safe ${st?.safe_l2.number ?? "-"}  finalized ${st?.finalized_l2.number ?? "-"}  (L1 ${st?.current_l1.number ?? "-"})${deposit}`,
      );
    }
    for (const line of (await followers?.statusLines()) ?? []) out(line);
    if (sn.devnet.chains[0]?.rollupConfig.lagoon_time !== undefined)
      out(interopLine(await interopStatus(sn.supernode.rpc.url), sn.traffic?.stats()));
    await new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, 2_000);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
