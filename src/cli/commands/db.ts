import { type Command, InvalidArgumentError } from "commander";
import { systemClock } from "../../core/time/clock.js";
import { checkSafeDb, moveSafeDbAside, safeDbPathOf } from "../../io/db/store-maintenance.js";

/** Where `supernode db` writes (tests pass their own) and how it reports its exit code. */
export interface DbCommandIo {
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
  setExit(code: number): void;
}

function chainIdArg(v: string): bigint {
  if (!/^[1-9][0-9]{0,19}$/.test(v)) throw new InvalidArgumentError("expected a decimal chain ID");
  return BigInt(v);
}

/**
 * `supernode db check|reset --data-dir D --chain N`: checks a chain's SafeDB, or moves a damaged one aside
 * (timestamped, kept) so the next start rebuilds it from L1 (docs/running.md, "SafeDB damage").
 */
export function registerDbCommands(program: Command, io: DbCommandIo): void {
  const db = program.command("db").description("check or reset a chain's SafeDB (stop the supernode first)");
  db.command("check")
    .description("open a chain's SafeDB and read every entry; exit 0 when intact, 1 when damaged, 2 when in use")
    .requiredOption("--data-dir <dir>", "the supernode's --data-dir")
    .requiredOption("--chain <id>", "decimal chain ID", chainIdArg)
    .action(async (opts: { dataDir: string; chain: bigint }) => {
      const dir = safeDbPathOf(opts.dataDir, opts.chain);
      const r = await checkSafeDb(dir);
      if (r.status === "ok") io.stdout.write(`${dir}: ok, ${r.entries} entries\n`);
      else if (r.status === "missing") io.stdout.write(`${dir}: missing (created empty on the next start)\n`);
      else if (r.status === "locked")
        io.stderr.write(`${dir}: locked: in use by a running supernode; stop it to check the store (${r.reason})\n`);
      else io.stderr.write(`${dir}: damaged: ${r.reason}\n`);
      io.setExit(r.status === "ok" || r.status === "missing" ? 0 : r.status === "locked" ? 2 : 1);
    });
  db.command("reset")
    .alias("repair")
    .description("move a chain's SafeDB aside (to <path>.damaged-<time>) so the next start rebuilds it from L1")
    .requiredOption("--data-dir <dir>", "the supernode's --data-dir")
    .requiredOption("--chain <id>", "decimal chain ID", chainIdArg)
    .action(async (opts: { dataDir: string; chain: bigint }) => {
      const dir = safeDbPathOf(opts.dataDir, opts.chain);
      try {
        const moved = await moveSafeDbAside(dir, systemClock);
        io.stdout.write(
          moved === undefined
            ? `${dir}: nothing to move\n`
            : `${dir} moved to ${moved}; the next start creates an empty SafeDB and refills it from L1\n`,
        );
        io.setExit(0);
      } catch (err) {
        io.stderr.write(`cannot move ${dir}: ${(err as Error).message}\n`);
        io.setExit(1);
      }
    });
}
