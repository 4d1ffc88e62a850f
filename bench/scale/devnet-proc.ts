/**
 * Child process of the `scale` benchmark: runs a devnet (anvil L1, N simulated execution clients, N batchers) in
 * its own process, so that none of it runs in the supernode's process. Prints one line `READY <json>` with the
 * supernode arguments and the L1 URL on standard output, then runs until SIGTERM.
 * Usage: node --import tsx bench/scale/devnet-proc.ts <chains> <dir> <rpcPort> <metricsPort>
 */
// First: the product entry installs the Promise.withResolvers polyfill libp2p needs on Node 20.
import "supernode";
import { join } from "node:path";
import { startDevnet, supernodeArgsFor } from "supernode-devnet";

const [chainsArg, dir, rpcPort, metricsPort] = process.argv.slice(2);
const n = Number(chainsArg);
if (!Number.isInteger(n) || n < 1 || dir === undefined) {
  process.stderr.write("usage: devnet-proc.ts <chains> <dir> <rpcPort> <metricsPort>\n");
  process.exit(2);
}
const devnet = await startDevnet({
  dir: join(dir, "devnet"),
  chains: Array.from({ length: n }, (_, i) => ({ chainId: 901 + i, variant: i % 2 === 0 ? "a" : "b" })),
  l1BlockTimeSec: 2,
  l2BlockTimeSec: 2,
  // one batcher poll per L1 block is what a real batcher does; it keeps the devnet's own CPU down at N = 100
  batcherPollIntervalMs: 2_000,
});
const args = supernodeArgsFor(devnet, {
  dir,
  chains: [],
  rpcPort: Number(rpcPort ?? 0),
  metricsPort: Number(metricsPort ?? 0),
});
devnet.startBatchers();
process.stdout.write(
  `READY ${JSON.stringify({ args, l1: devnet.l1.rpcUrl, chains: devnet.chains.map((c) => Number(c.chainId)) })}\n`,
);
let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await devnet.stop().catch(() => {});
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
// The bench spawns this with an IPC channel: its end closes however the bench ends (kill -9 too).
process.channel?.unref();
process.on("disconnect", () => void stop());
