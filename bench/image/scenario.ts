/**
 * The image run against a devnet outside it: the supernode in a container until every chain's safe head reaches
 * `SAFE_TARGET`; its uid and read-only root checked while it runs; SIGTERM, timed; a second container on the same
 * /data volume, which must resume: its first safe heads already those it stopped at, and fewer blocks derived until
 * it passes them than those heads (a node deriving again from genesis derives at least that many).
 */
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningContainer, startContainer } from "./container.js";
import { type ExternalSupernode, freePort, startDevnet } from "./devnet.js";
import { podman, removeVolume, uniqueName } from "./podman.js";
import { allHeads, type ChainHeads, derivedBlocks, waitFor } from "./probe.js";

const CHAINS = 2;
const SAFE_TARGET = 10;
const SAFE_TIMEOUT_MS = 240_000;

export interface ScenarioResult {
  readonly chains: number;
  readonly chainsSafe: number;
  readonly uid: number;
  readonly readOnlyRootfs: boolean;
  readonly sigtermStopS: number;
  readonly sigtermExitCode: number | null;
  readonly restartResumed: boolean;
  /** Per chain: safe head at the stop, first safe head seen after the restart, blocks derived after it. */
  readonly restart: ReadonlyArray<{ chain: number; stopSafe: number; firstSafe: number; derived: number }>;
}

const everySafe = (heads: Map<number, ChainHeads>, chains: readonly number[], at: (id: number) => number) =>
  chains.every((id) => (heads.get(id)?.safe ?? -1) >= at(id));

export async function runScenario(root: string, image: string, log: NodeJS.WritableStream): Promise<ScenarioResult> {
  const dir = mkdtempSync(join(tmpdir(), "sn-image-devnet-"));
  const devnet = startDevnet(
    root,
    dir,
    { chains: CHAINS, rpcPort: await freePort(), metricsPort: await freePort() },
    log,
  );
  const volume = uniqueName("supernode-image-data");
  const started: RunningContainer[] = [];
  try {
    const ext = await devnet.ready;
    const files = await readableByImageUser(ext.files, join(dir, "secrets"), image);
    await podman(["volume", "create", volume]);
    const run = () => {
      const c = startContainer({
        name: uniqueName("supernode-image"),
        image,
        volume,
        readOnlyFiles: files,
        args: [...ext.args, "--data-dir", "/data"],
        log,
      });
      started.push(c);
      return c;
    };
    const first = run();
    const safe = await waitFor(
      `every chain safe at ${SAFE_TARGET}`,
      async () => {
        const h = await allHeads(ext.rpc, ext.chains);
        return everySafe(h, ext.chains, () => SAFE_TARGET) ? h : undefined;
      },
      SAFE_TIMEOUT_MS,
    ).catch(async (err: unknown) => {
      log.write(`${String(err)}\n`);
      return allHeads(ext.rpc, ext.chains);
    });
    const chainsSafe = ext.chains.filter((id) => (safe.get(id)?.safe ?? 0) > 0).length;
    const uid = await first.mainUid();
    const readOnlyRootfs = await first.rootIsReadOnly();
    const atStop = await allHeads(ext.rpc, ext.chains);
    const stop = await first.terminate();
    const restart = await restartOnSameVolume(ext, run, atStop);
    return {
      chains: ext.chains.length,
      chainsSafe,
      uid,
      readOnlyRootfs,
      sigtermStopS: stop.seconds,
      sigtermExitCode: stop.code,
      restartResumed: restart.every((r) => r.firstSafe >= r.stopSafe && r.derived < r.stopSafe),
      restart,
    };
  } finally {
    for (const c of started) await c.remove();
    await removeVolume(volume);
    await devnet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function restartOnSameVolume(
  ext: ExternalSupernode,
  run: () => RunningContainer,
  atStop: Map<number, ChainHeads>,
): Promise<Array<{ chain: number; stopSafe: number; firstSafe: number; derived: number }>> {
  const second = run();
  const stopSafe = (id: number) => atStop.get(id)?.safe ?? 0;
  // The first safe head each chain reports once it has one (before it has found its heads it reports 0): a node
  // deriving again from genesis would report 1, 2, …; a resumed one the safe head it stopped at, or later.
  const firstSeen = await waitFor(
    "the restarted supernode's safe heads",
    async () => {
      const h = await allHeads(ext.rpc, ext.chains);
      return everySafe(h, ext.chains, () => 1) ? h : undefined;
    },
    60_000,
    200,
  );
  await waitFor(
    "safe heads past those at the stop",
    async () => {
      const h = await allHeads(ext.rpc, ext.chains);
      return everySafe(h, ext.chains, (id) => stopSafe(id) + 1) ? h : undefined;
    },
    SAFE_TIMEOUT_MS,
  );
  const derived = await derivedBlocks(ext.metrics);
  const result = ext.chains.map((chain) => ({
    chain,
    stopSafe: stopSafe(chain),
    firstSafe: firstSeen.get(chain)?.safe ?? 0,
    derived: derived.get(chain) ?? 0,
  }));
  await second.terminate();
  return result;
}

/**
 * The files to mount, each at its own path inside; one only its owner may read (the devnet's JWT secrets, 0600
 * root) is given as an operator would give it to the container's user: a copy owned by the image's uid, mode 0400.
 */
async function readableByImageUser(files: readonly string[], secrets: string, image: string) {
  const [uid, gid] = (await podman(["image", "inspect", "--format", "{{.Config.User}}", image])).split(":").map(Number);
  mkdirSync(secrets, { recursive: true });
  return files.map((target, i) => {
    if ((statSync(target).mode & 0o004) !== 0) return { source: target, target };
    const source = join(secrets, `${i}-${target.split("/").pop()}`);
    copyFileSync(target, source);
    chownSync(source, uid ?? 0, gid ?? uid ?? 0);
    chmodSync(source, 0o400);
    return { source, target };
  });
}
