/**
 * Process of the `p2p` benchmark that hosts the follower's execution clients (one per chain, from each chain's
 * genesis) and starts the follower supernode in a process of its own (`startFollowers`, one follower). Reports
 * every head change of its execution clients over IPC ({@link HeadReport}, timed with {@link machineMs}) and prints
 * `READY <json>` with the follower's RPC URL and PID.
 * Usage: node --import tsx bench/p2p/follower-proc.ts <dir> <sequencer RPC URL> <devnet JSON file> [node args JSON]
 */
import "../../src/core/polyfill.js";
import { readFileSync } from "node:fs";
import { type FollowedDevnet, startFollowers } from "../../src/cli/commands/devnet-followers.js";
import { silentLogger } from "../../src/core/logger.js";
import { fromJson, type HeadReport, machineMs, serveHostProcess } from "./procs.js";

const [dir, seqRpcUrl, devnetFile, nodeArgsJson] = process.argv.slice(2);
if (dir === undefined || seqRpcUrl === undefined || devnetFile === undefined) {
  process.stderr.write("usage: follower-proc.ts <dir> <sequencer RPC URL> <devnet JSON file> [node args JSON]\n");
  process.exit(2);
}
const devnet = fromJson<FollowedDevnet>(readFileSync(devnetFile, "utf8"));
const nodeArgs = nodeArgsJson === undefined ? [] : (JSON.parse(nodeArgsJson) as string[]);
const f = await startFollowers(
  devnet,
  { count: 1, dir, sequencerRpcUrl: seqRpcUrl, rpcPort: 0, metricsPort: 0, logLevel: "error", nodeArgs },
  silentLogger,
);
serveHostProcess(() => f.stop());
const follower = f.list[0];
if (follower === undefined) throw new Error("no follower");
for (const c of follower.chains) {
  const chain = Number(c.chainId);
  c.el.core.chain.onHeadChange((h) => {
    const t = machineMs();
    for (const b of h.added) {
      const r: HeadReport = { kind: "head", chain, number: b.header.number, hash: b.hash, t };
      process.send?.(r);
    }
  });
}
process.stdout.write(`READY ${JSON.stringify({ rpcUrl: follower.rpcUrl, pid: follower.pid })}\n`);
