/**
 * `npm run image`: builds the container image with podman on a base made here (base.ts), then runs it for real:
 * `--help`; the supernode in a container against a devnet running outside it until every chain is safe; SIGTERM,
 * timed; a restart on the same volume that must resume. Figures are JSON lines on standard output
 * (`{"bench":"image",…}`), progress on standard error. Exits non-zero when a figure misses what the image promises
 * (every chain safe, a non-root uid, a read-only root, a stop under 10 s, a resumed restart). Needs root, podman
 * (with runc) and debootstrap: `.ci/run` installs them.
 */
import { printFigure as print, note } from "../harness.js";
import { ensureBaseImage } from "./base.js";
import { buildImage, IMAGE_TAG, imageMegabytes } from "./build.js";
import { podman, podmanGlobalArgs, ulimitArgs, which } from "./podman.js";
import { runScenario } from "./scenario.js";

const ROOT = new URL("../..", import.meta.url).pathname;
const figure = (name: string, value: number, unit: string) => print("image", { figure: name, value, unit });

function preflight(): void {
  const missing = ["podman", "debootstrap"].filter((t) => which(t) === undefined);
  if (missing.length > 0) throw new Error(`missing ${missing.join(", ")}: apt-get install -y podman runc debootstrap`);
  if (process.getuid?.() !== 0) throw new Error("needs root (debootstrap and rootful podman)");
}

/** `--help` from a read-only container, and no devnet in the image (no anvil, no devnet package). */
async function checkHelp(): Promise<void> {
  const run = (entry: string[], args: string[]) =>
    podman([
      "run",
      "--rm",
      "--read-only",
      "--read-only-tmpfs=false",
      "--network",
      "none",
      ...ulimitArgs(),
      ...entry,
      IMAGE_TAG,
      ...args,
    ]);
  const out = await run([], ["--help"]);
  if (!out.includes("--chains")) throw new Error(`--help does not list --chains:\n${out}`);
  const devnet = await run(
    ["--entrypoint", "sh"],
    ["-c", "ls -d /app/node_modules/@foundry-rs /app/node_modules/supernode-devnet /app/packages 2>/dev/null || true"],
  );
  if (devnet !== "") throw new Error(`the image holds devnet parts: ${devnet}`);
  note(`--help: ${out.split("\n")[0]}`);
}

async function main(): Promise<void> {
  preflight();
  note(`podman ${await podman(["--version"])} ${podmanGlobalArgs().join(" ")}`);
  const { tag: base, made } = await ensureBaseImage(note);
  note(`base ${base}${made ? " (made now)" : " (cached)"}`);
  const buildS = await buildImage(ROOT, base, process.stderr);
  figure("build_s", Math.round(buildS * 10) / 10, "s");
  figure("image_mb", await imageMegabytes(), "MB");
  await checkHelp();
  const r = await runScenario(ROOT, IMAGE_TAG, process.stderr);
  for (const x of r.restart) note(`restart chain ${x.chain}: ${JSON.stringify(x)}`);
  figure("chains", r.chains, "chains");
  figure("chains_safe", r.chainsSafe, "chains");
  figure("uid", r.uid, "uid");
  figure("read_only_rootfs", r.readOnlyRootfs ? 1 : 0, "bool");
  figure("sigterm_stop_s", Math.round(r.sigtermStopS * 100) / 100, "s");
  figure("restart_resumed", r.restartResumed ? 1 : 0, "bool");
  const misses = [
    r.chainsSafe < r.chains ? `${r.chains - r.chainsSafe} chain(s) never safe` : "",
    r.uid === 0 ? "runs as root" : "",
    r.readOnlyRootfs ? "" : "root filesystem writable",
    r.sigtermStopS < 10 && r.sigtermExitCode === 0 ? "" : `SIGTERM stop ${r.sigtermStopS} s, exit ${r.sigtermExitCode}`,
    r.restartResumed ? "" : "the restart did not resume",
  ].filter((m) => m !== "");
  if (misses.length > 0) {
    note(`image: ${misses.join("; ")}`);
    process.exitCode = 1;
  }
}

await main();
