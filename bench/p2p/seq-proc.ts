/**
 * Process of the `p2p` benchmark that hosts the sequencing side's devnet: anvil (its own process), N simulated
 * execution clients and N batchers here, and the sequencing supernode in a child process of its own
 * (`startChildDevnet` with P2P on). Reports every head change of its execution clients over IPC ({@link HeadReport},
 * timed with {@link machineMs}) and prints `READY <json>`: the supernode's RPC URL and PID, and the devnet's
 * description a follower needs (`FollowedDevnet`, bigints kept).
 * Usage: node --import tsx bench/p2p/seq-proc.ts <chains> <dir>
 */
// First: the product entry installs the Promise.withResolvers polyfill libp2p needs on Node 20.
import "supernode";
import { startChildDevnet } from "supernode-devnet/cli/child";
import type { FollowedDevnet } from "supernode-devnet/cli/followers";
import { silentLogger } from "supernode/core";
import { type HeadReport, machineMs, serveHostProcess, toJson } from "./procs.js";

const [chainsArg, dir] = process.argv.slice(2);
const n = Number(chainsArg);
if (!Number.isInteger(n) || n < 1 || dir === undefined) {
  process.stderr.write("usage: seq-proc.ts <chains> <dir>\n");
  process.exit(2);
}
const cd = await startChildDevnet(
  {
    dir,
    chains: Array.from({ length: n }, (_, i) => ({ chainId: BigInt(901 + i), variant: i % 2 === 0 ? "a" : "b" })),
    rpcPort: 0,
    metricsPort: 0,
    l1BlockTimeSec: 2,
    l2BlockTimeSec: 1,
    dataMode: "calldata",
    logLevel: "error",
    p2p: true,
  },
  silentLogger,
);
serveHostProcess(() => cd.stop());
for (const c of cd.devnet.chains) {
  const chain = Number(c.chainId);
  c.client.core.chain.onHeadChange((h) => {
    const t = machineMs();
    for (const b of h.added) {
      const r: HeadReport = { kind: "head", chain, number: b.header.number, hash: b.hash, t };
      process.send?.(r);
    }
  });
}
const followed: FollowedDevnet = {
  l1: { rpcUrl: cd.devnet.l1.rpcUrl, beaconUrl: cd.devnet.l1.beaconUrl },
  chains: cd.devnet.chains.map((c) => ({
    chainId: c.chainId,
    variant: c.variant,
    elGenesis: c.elGenesis,
    rollupConfigPath: c.rollupConfigPath,
    rollupConfig: { lagoon_time: c.rollupConfig.lagoon_time },
    client: { genesisHash: c.client.genesisHash },
  })),
};
process.stdout.write(`READY ${toJson({ rpcUrl: cd.rpcUrl, pid: cd.supernode?.pid, devnet: followed })}\n`);
