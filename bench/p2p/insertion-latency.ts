/**
 * Gossip latency to the follower's execution client, end to end on loopback: a devnet of N chains with the sequencing
 * supernode in a child process (P2P on, blocks signed) and one follower supernode in another child process
 * (`startFollowers`), 1 s L2 blocks. The execution clients of both run in this process, so one clock times a block
 * from the moment it becomes the head of the sequencer's execution client (just before the sequencer publishes it)
 * to the moment it becomes the head of the follower's (gossip → validation → the follower node's unsafe queue →
 * `engine_newPayload` + `engine_forkchoiceUpdated`). Only blocks built inside the measuring window count, once every
 * follower chain is within two blocks of its sequencer.
 *
 * Controls in the same run: the round trip of a `stack_syncStatus` call to the follower supernode every 100 ms
 * (the follower process's responsiveness and loopback HTTP under the same load), and the event-loop delay of this
 * process, which serves both sides' execution clients (a busy loop here delays the follower's Engine API calls).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { type ChildDevnet, startChildDevnet } from "../../src/cli/commands/devnet-child.js";
import { type Followers, startFollowers } from "../../src/cli/commands/devnet-followers.js";
import { rpcCall } from "../../src/cli/commands/devnet-p2p.js";
import { silentLogger } from "../../src/core/logger.js";
import { note } from "../harness.js";

export interface InsertionLatency {
  readonly samples: number[];
  readonly control: number[];
  readonly blocksBuilt: number;
  /** This process's event-loop delay over the window (ms). */
  readonly loopDelayP50Ms: number;
  readonly loopDelayP99Ms: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function insertionLatency(n: number, windowMs: number): Promise<InsertionLatency> {
  const dir = mkdtempSync(join(tmpdir(), "sn-bench-p2p-"));
  let cd: ChildDevnet | undefined;
  let f: Followers | undefined;
  const offs: (() => void)[] = [];
  try {
    cd = await startChildDevnet(
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
    f = await startFollowers(
      cd.devnet,
      { count: 1, dir, sequencerRpcUrl: cd.rpcUrl, rpcPort: 0, metricsPort: 0, logLevel: "error" },
      silentLogger,
    );
    const follower = f.list[0];
    if (follower === undefined) throw new Error("no follower");
    const pairs = cd.devnet.chains.map((c) => {
      const fc = follower.chains.find((x) => x.chainId === c.chainId);
      if (fc === undefined) throw new Error(`follower has no chain ${c.chainId}`);
      return { seq: c.client, fol: fc.el };
    });
    // Every follower chain following by gossip: within two blocks of its sequencer, past block 3.
    const settle = Date.now() + 120_000;
    for (;;) {
      const behind = pairs.filter(
        (p) => p.fol.core.chain.head.header.number < Math.max(3, p.seq.core.chain.head.header.number - 2),
      );
      if (behind.length === 0) break;
      if (Date.now() > settle) throw new Error(`${behind.length} of ${n} follower chains never caught up`);
      await sleep(200);
    }
    note(`p2p: ${n} chains, follower caught up; measuring ${windowMs / 1000} s`);
    const built = new Map<string, number>();
    const samples: number[] = [];
    let measuring = true;
    for (const p of pairs) {
      offs.push(
        p.seq.core.chain.onHeadChange((c) => {
          if (!measuring) return;
          for (const b of c.added) built.set(b.hash, performance.now());
        }),
        p.fol.core.chain.onHeadChange((c) => {
          const now = performance.now();
          for (const b of c.added) {
            const t = built.get(b.hash);
            if (t !== undefined) {
              samples.push(now - t);
              built.delete(b.hash);
            }
          }
        }),
      );
    }
    const control: number[] = [];
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const url = `${follower.rpcUrl}/901/`;
    const end = Date.now() + windowMs;
    while (Date.now() < end) {
      const t0 = performance.now();
      await rpcCall(url, "stack_syncStatus", [], 5_000).catch(() => undefined);
      control.push(performance.now() - t0);
      await sleep(100);
    }
    measuring = false;
    loop.disable();
    const blocksBuilt = built.size + samples.length;
    await sleep(2_000); // blocks still in flight
    return {
      samples,
      control,
      blocksBuilt,
      // the histogram holds whole intervals between the 10 ms samples: the delay is what exceeds them
      loopDelayP50Ms: Math.max(0, loop.percentile(50) / 1e6 - 10),
      loopDelayP99Ms: Math.max(0, loop.percentile(99) / 1e6 - 10),
    };
  } finally {
    for (const off of offs) off();
    await f?.stop().catch(() => {});
    await cd?.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}
