/**
 * proxyd (the OP Stack's RPC proxy, `github.com/ethereum-optimism/infra/proxyd`) in its consensus-aware CL mode
 * (`routing_strategy = "consensus_aware_consensus_layer"`) in front of two supernodes
 * (test/reference/proxyd.test.ts). One devnet L1 (anvil), chain 901: a supernode sequencing on op-geth A (P2P on
 * loopback, the devnet's batcher posting calldata span batches) and a second supernode, a verifier in a process of
 * its own, on op-geth B with the sequencer as its static peer. proxyd polls both chain routes: `opp2p_peerStats`
 * (peer count), `optimism_syncStatus` (heads, `current_l1`, `head_l1`), and `optimism_outputAtBlock` at the group's
 * lowest safe block (output roots compared across the backends); it serves `optimism_syncStatus` from the backend
 * with the lowest `current_l1` and routes other methods to the consensus group. Each supernode has one P2P peer
 * (the other), so `consensus_min_peer_count = 1`; stopping one would leave the other without peers, so there is no
 * fail-over case.
 *
 * No recipe here builds proxyd (the Go module proxy refuses its module): a test finds a binary through
 * `SUPERNODE_REF_PROXYD` and skips without one.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Hash } from "../../src/core/types/primitives.js";
import { loopbackAddr, waitForP2PSelf } from "supernode-devnet/cli/p2p";
import { freePort, inReferenceRig, jsonRpc, type RefProcess, startReferenceBinary, until } from "./reference.js";
import { startElRig, startSupernodeIn, startSupernodeProcess, type Traffic, withTraffic } from "./reference-el.js";
import { startBatcher } from "./reference-op-node.js";
import { CHAIN } from "./reference-oracle.js";

type BlockId = { hash: Hash; number: number };
type SyncStatus = { current_l1: BlockId; safe_l2: BlockId; finalized_l2: BlockId; unsafe_l2: BlockId };
type Output = { outputRoot: Hash };

export interface ProxydResult {
  /** proxyd's `optimism_syncStatus` answers sampled (each one backend's snapshot) and how many went backwards. */
  readonly served: number;
  readonly servedRegressions: number;
  /** Served safe heads that were not the sequencer's block at that number, the first named. */
  readonly mismatches: string[];
  /** proxyd's consensus group (backends in it) at the end. */
  readonly groupBoth: number;
  /** Per backend: the peer count proxyd read from `opp2p_peerStats`, and whether it counts it in sync (1). */
  readonly peers: number[];
  readonly inSync: number[];
  /** proxyd's own counters: output-root disagreements, bans for a wrong output root, halts. */
  readonly outputRootDisagreements: number;
  readonly outputRootBans: number;
  readonly halts: number;
  /** `optimism_outputAtBlock` through proxyd against each supernode's own answer, blocks compared. */
  readonly outputsCompared: number;
  readonly safe: number;
}

export interface Proxyd extends RefProcess {
  readonly url: string;
  readonly metricsUrl: string;
}

/** Runs the rig until proxyd serves a safe head at `blocks` with both supernodes in its consensus group. */
export function runProxyd(blocks: number): Promise<ProxydResult> {
  return inReferenceRig("proxyd", async (dir, stops) => {
    const rig = await startElRig(undefined, dir, stops, undefined);
    const { devnet, pair } = rig;
    const seq = await startSupernodeIn(rig, dir, pair.ours, { name: "supernode-seq", p2p: true });
    stops.push(() => seq.stop());
    const seqRpc = `${seq.rpc.url}/${CHAIN}/`;
    startBatcher(devnet, pair.ours, pair.cfg, { mode: "calldata", batchType: "span" }, stops);
    const seqAddr = loopbackAddr(await waitForP2PSelf(seq.rpc.url, CHAIN, AbortSignal.timeout(60_000)));
    const verifier = await startSupernodeProcess(
      rig,
      dir,
      pair.theirs,
      { name: "supernode-verifier", sequencer: false, p2p: true, extra: [`--vn.${CHAIN}.p2p.static`, seqAddr] },
      stops,
    );
    const proxyd = await startProxyd(dir, [seqRpc, verifier.url]);
    const traffic: Traffic = { userTxs: 0, deposits: 0, lastMs: 0 };
    stops.push(() => proxyd.stop());
    return await observe(proxyd, [seqRpc, verifier.url], pair.ours.httpUrl, blocks, (what, done, ms) =>
      withTraffic(what, devnet, () => pair.ours.httpUrl, traffic, done, ms),
    );
  });
}

async function observe(
  proxyd: Proxyd,
  backends: readonly string[],
  seqEl: string,
  blocks: number,
  run: (what: string, done: () => Promise<boolean>, ms: number) => Promise<void>,
): Promise<ProxydResult> {
  const mismatches: string[] = [];
  let served = 0;
  let regressions = 0;
  let last: SyncStatus | undefined;
  let groupBoth = 0;
  await run(
    `proxyd serving a safe head at ${blocks} with both supernodes in its group`,
    async () => {
      const s = await jsonRpc<SyncStatus>(proxyd.url, "optimism_syncStatus").catch(() => undefined);
      if (s === undefined) return false;
      served++;
      if (
        last !== undefined &&
        (s.current_l1.number < last.current_l1.number || s.safe_l2.number < last.safe_l2.number)
      )
        regressions++;
      last = s;
      const q = `0x${s.safe_l2.number.toString(16)}`;
      const b = await jsonRpc<BlockId>(seqEl, "eth_getBlockByNumber", [q, false]);
      if (b.hash !== s.safe_l2.hash && mismatches.length < 3)
        mismatches.push(`served safe head ${s.safe_l2.number}: proxyd ${s.safe_l2.hash}, sequencer ${b.hash}`);
      groupBoth = await groupCount(proxyd);
      return s.safe_l2.number >= blocks && groupBoth === 2;
    },
    blocks * 4_000 + 120_000,
  );
  const safe = (last as SyncStatus).safe_l2.number;
  let outputsCompared = 0;
  for (let n = Math.max(1, safe - 9); n <= safe; n++) {
    const q = `0x${n.toString(16)}`;
    const via = await jsonRpc<Output>(proxyd.url, "optimism_outputAtBlock", [q]);
    for (const direct of backends) {
      const d = await jsonRpc<Output>(direct, "optimism_outputAtBlock", [q]);
      if (d.outputRoot !== via.outputRoot && mismatches.length < 3)
        mismatches.push(`output at ${n}: proxyd ${via.outputRoot}, ${direct} ${d.outputRoot}`);
    }
    outputsCompared++;
  }
  const counters = {
    outputRootDisagreements: await metricSum(proxyd, "proxyd_consensus_cl_output_root_disagreement_total"),
    outputRootBans: await metricSum(proxyd, "proxyd_consensus_cl_ban_output_root_mismatch_total"),
    halts: await metricSum(proxyd, "proxyd_consensus_cl_halt_total"),
  };
  const peers = await metricValues(proxyd, "proxyd_consensus_backend_peer_count");
  const inSync = await metricValues(proxyd, "proxyd_consensus_backend_in_sync");
  return {
    served,
    servedRegressions: regressions,
    mismatches,
    groupBoth,
    peers,
    inSync,
    ...counters,
    outputsCompared,
    safe,
  };
}

/** proxyd on loopback with one backend group of `backends` in CL consensus mode; resolves once it answers. */
async function startProxyd(dir: string, backends: readonly string[]): Promise<Proxyd> {
  const [rpc, metrics] = [await freePort(), await freePort()];
  const names = backends.map((_, i) => `supernode${i + 1}`);
  const toml = [
    `[server]\nrpc_host = "127.0.0.1"\nrpc_port = ${rpc}\n`,
    `[metrics]\nenabled = true\nhost = "127.0.0.1"\nport = ${metrics}\n`,
    // CL mode requires a backend timeout.
    `[backend]\nresponse_timeout_seconds = 5\n`,
    ...backends.map((url, i) => `[backends.${names[i]}]\nrpc_url = "${url}"\n`),
    "[backend_groups.rollup]",
    `backends = [${names.map((n) => `"${n}"`).join(", ")}]`,
    `routing_strategy = "consensus_aware_consensus_layer"`,
    `consensus_poller_interval = "1s"\nconsensus_ban_period = "10s"\nconsensus_min_peer_count = 1\n`,
    "[rpc_method_mappings]",
    ...["optimism_syncStatus", "optimism_outputAtBlock", "optimism_rollupConfig"].map((m) => `${m} = "rollup"`),
  ].join("\n");
  const path = join(dir, "proxyd.toml");
  writeFileSync(path, `${toml}\n`);
  const p = startReferenceBinary("proxyd", [path], dir);
  const url = `http://127.0.0.1:${rpc}`;
  const metricsUrl = `http://127.0.0.1:${metrics}/metrics`;
  try {
    await until("proxyd's metrics", async () => ((await fetch(metricsUrl)).ok ? true : undefined), 30_000);
  } catch (err) {
    await p.stop();
    throw err;
  }
  return { ...p, url, metricsUrl };
}

/** The value of every series of `name` on proxyd's metrics page (one per backend for the per-backend ones). */
async function metricValues(proxyd: Proxyd, name: string): Promise<number[]> {
  const text = await (await fetch(proxyd.metricsUrl)).text();
  return text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .map((l) => Number(l.slice(l.lastIndexOf(" ") + 1)));
}

const metricSum = async (proxyd: Proxyd, name: string): Promise<number> =>
  (await metricValues(proxyd, name)).reduce((a, b) => a + b, 0);

const groupCount = (proxyd: Proxyd): Promise<number> => metricSum(proxyd, "proxyd_group_consensus_count");
