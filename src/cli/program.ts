import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, Help } from "commander";
import { effectiveConfigJson, redactUrl } from "../config/effective.js";
import { renderChainOptionsHelp, renderMainHelp } from "../config/help.js";
import { type ConfigWarning, formatIssues } from "../config/issues.js";
import { loadConfig } from "../config/load.js";
import type { SupernodeConfig } from "../config/types.js";
import { type AppLogger, createLogger } from "../observability/logger.js";
import { registerDbCommands } from "./commands/db.js";
import { installSignalHandlers } from "./signals.js";

/** Where the CLI writes and what it reads; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Runs the node (default: `runSupernode`). */
  readonly run?: (config: SupernodeConfig, deps: { logger: AppLogger; signal: AbortSignal }) => Promise<void>;
  /** Install SIGINT/SIGTERM handlers (default true). */
  readonly handleSignals?: boolean;
  /** Logger destination for `run` (default: stdout). */
  readonly logDestination?: { write(s: string): unknown };
}

export function packageVersion(): string {
  try {
    const here = dirname(fileURLToPath(import.meta.url));
    const pkg = JSON.parse(readFileSync(join(here, "..", "..", "package.json"), "utf8")) as { version?: string };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

const COMMANDS: ReadonlyArray<readonly [string, string]> = [
  ["config [options]", "print the effective per-chain configuration as JSON (secrets redacted)"],
  ["chain-options [--hidden]", "list every per-chain option with its env name"],
  ["devnet ...", "moved to the supernode-devnet package (npx supernode-devnet --help)"],
  ["db check|reset --data-dir D --chain N", "check a chain's SafeDB, or move a damaged one aside to rebuild it"],
];

/** What `supernode devnet …` prints: the devnet is tooling in a package of its own, not part of the product. */
export const DEVNET_MOVED =
  "supernode: the local devnet is not part of the supernode package; it is the supernode-devnet package beside it " +
  "(packages/devnet in the repository). Run it with `npx supernode-devnet [options]` (every option of the former " +
  "`supernode devnet`), `npx supernode-devnet el …` for one simulated execution client, or `npm start -- [options]` " +
  "at the repository root. See docs/devnet.md.";

function logWarnings(logger: AppLogger, warnings: readonly ConfigWarning[]): void {
  for (const w of warnings) logger.warn(w.fields, w.msg);
}

/** Loads the config or prints every problem; returns undefined on failure. */
function load(args: readonly string[], io: CliIo): ReturnType<typeof loadConfig> {
  const res = loadConfig(args, io.env);
  if (!res.ok) io.stderr.write(`supernode: ${formatIssues(res.issues)}\n`);
  return res;
}

async function runNode(args: readonly string[], io: CliIo): Promise<number> {
  const res = load(args, io);
  if (!res.ok) return 1;
  const { config } = res;
  const logger = createLogger({ ...config.log, destination: io.logDestination ?? process.stdout });
  logWarnings(logger, res.warnings);
  for (const c of config.chainConfigs) {
    logger.child({ chain: c.chainId.toString(10) }).info(
      {
        source: c.network ?? c.rollupConfigPath,
        l2: redactUrl(c.l2),
        engineKind: c.engineKind,
        sequencer: c.sequencer.enabled,
        p2p: !c.p2p.disabled,
      },
      "chain configured",
    );
  }
  if (
    typeof config.options["interop.activation-timestamp"] === "number" &&
    config.options["interop.activation-timestamp"] > 0
  ) {
    logger.info(
      { timestamp: config.options["interop.activation-timestamp"] },
      "interop activation timestamp override set",
    );
  }
  const controller = new AbortController();
  const uninstall =
    io.handleSignals === false
      ? () => {}
      : installSignalHandlers(controller, {
          onFirst: (sig) => logger.info({ signal: sig }, "shutting down (send again to force)"),
          onForce: (sig) => logger.warn({ signal: sig }, "forced exit"),
        });
  // Keep the event loop alive until the node returns, whatever handles it holds.
  const keepAlive = setInterval(() => {}, 1 << 30);
  try {
    // Loaded lazily so that --help, `config` and configuration errors do not pay for the whole node.
    const run = io.run ?? (await import("../app/run.js")).runSupernode;
    await run(config, { logger, signal: controller.signal });
    return 0;
  } catch (err) {
    logger.crit({ err }, "supernode failed");
    return 1;
  } finally {
    clearInterval(keepAlive);
    uninstall();
    logger.flush?.();
  }
}

function printConfig(args: readonly string[], io: CliIo): number {
  const res = load(args, io);
  if (!res.ok) return 1;
  const logger = createLogger({ level: "warn", format: "text", color: false, destination: io.stderr });
  logWarnings(logger, res.warnings);
  io.stdout.write(`${JSON.stringify(effectiveConfigJson(res.config), null, 2)}\n`);
  return 0;
}

/** Builds the commander program. `argv` is the user arguments (without node and script). */
export function buildProgram(argv: readonly string[], io: CliIo, setExit: (code: number) => void): Command {
  const version = packageVersion();
  const program = new Command("supernode");
  const after = (name: string): string[] => {
    const i = argv.indexOf(name);
    return i < 0 ? [] : argv.slice(i + 1);
  };
  program
    .description("One process hosting a rollup node for each of many OP-Stack-style L2 chains")
    .version(version, "-V, --version")
    .allowUnknownOption()
    .allowExcessArguments()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .configureHelp({
      formatHelp: (cmd, helper) =>
        cmd === program ? renderMainHelp(version, COMMANDS) : Help.prototype.formatHelp.call(helper, cmd, helper),
    })
    .action(async () => setExit(await runNode(argv, io)));
  program
    .command("config")
    .description("print the effective per-chain configuration as JSON (secrets redacted)")
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption(false)
    .action(() => {
      const args = after("config");
      if (args.includes("--help") || args.includes("-h")) {
        io.stdout.write(
          `Usage: supernode config [options]\n\nPrints the effective configuration (every chain, every resolved option) as JSON with secrets\nredacted, after the same expansion and validation as a run. Takes the same options as \`supernode\`.\n\n${renderMainHelp(version, COMMANDS)}`,
        );
        setExit(0);
        return;
      }
      setExit(printConfig(args, io));
    });
  program
    .command("chain-options")
    .description("list every per-chain option with its env name")
    .option("--hidden", "include hidden and deprecated options")
    .action((opts: { hidden?: boolean }) => {
      io.stdout.write(renderChainOptionsHelp(opts.hidden === true));
      setExit(0);
    });
  program
    .command("devnet")
    .description("moved: the local devnet is the supernode-devnet package")
    .allowUnknownOption()
    .allowExcessArguments()
    .helpOption(false)
    .action(() => {
      io.stderr.write(`${DEVNET_MOVED}\n`);
      setExit(2);
    });
  registerDbCommands(program, { stdout: io.stdout, stderr: io.stderr, setExit });
  return program;
}

/** Runs the CLI with `argv` (user arguments); resolves to the process exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let code = 0;
  const program = buildProgram(argv, io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    throw err;
  }
  return code;
}
