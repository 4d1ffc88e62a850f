import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevnetSupernode, startDevnetSupernode } from "supernode-devnet";
import { silentLogger } from "../../../src/core/logger.js";

/** Eight chains (alternating execution-client variants) in one supernode on one anvil L1. */
const IDS = [901n, 902n, 903n, 904n, 905n, 906n, 907n, 908n];

async function call(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.json();
}

describe("supernode on the devnet with eight chains", () => {
  let dir: string;
  let sn: DevnetSupernode;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-devnet8-"));
    sn = await startDevnetSupernode(
      {
        dir,
        chains: IDS.map((chainId, i) => ({ chainId, variant: i % 2 === 0 ? "a" : "b" })),
        rpcPort: 0,
        metricsPort: 0,
        l1BlockTimeSec: 1,
        l2BlockTimeSec: 1,
        extraArgs: ["--l1.http-poll-interval", "250ms"],
      },
      { logger: silentLogger },
    );
  }, 120_000);

  afterAll(async () => {
    await sn?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("every chain derives a safe head and is served at its own path", async () => {
    const rpc = sn.supernode.rpc.url;
    const t0 = Date.now();
    for (;;) {
      const statuses = (await call(`${rpc}/`, { jsonrpc: "2.0", id: 1, method: "supernode_syncStatus" })) as {
        result: {
          chain_ids: string[];
          chains: Record<string, { safe_l2: { number: number } }>;
          safe_timestamp: number;
        };
      };
      expect(statuses.result.chain_ids).toEqual(IDS.map(String));
      if (Object.values(statuses.result.chains).every((s) => s.safe_l2.number > 0)) break;
      if (Date.now() - t0 > 90_000) throw new Error("not every chain became safe in time");
      await new Promise((r) => setTimeout(r, 500));
    }
    // one batch per chain, each answered by the right chain
    const replies = await Promise.all(
      IDS.map((id) =>
        call(`${rpc}/${id}/`, [
          { jsonrpc: "2.0", id: 1, method: "stack_rollupConfig" },
          { jsonrpc: "2.0", id: 2, method: "stack_syncStatus" },
        ]),
      ),
    );
    replies.forEach((r, i) => {
      const [cfg, st] = r as [{ result: { l2_chain_id: number } }, { result: { unsafe_l2: { number: number } } }];
      expect(cfg.result.l2_chain_id).toBe(Number(IDS[i]));
      expect(st.result.unsafe_l2.number).toBeGreaterThan(0);
    });
  }, 120_000);

  it("labels every chain's series on the one metrics endpoint", async () => {
    const text = await (await fetch(sn.supernode.metricsServer!.url)).text();
    const chains = new Set(
      [...text.matchAll(/supernode_chain_head\{chain_id="(\d+)",head="unsafe"\} (\d+)/g)].map((m) => m[1]),
    );
    expect([...chains].sort()).toEqual(IDS.map(String));
    const running = [...text.matchAll(/supernode_chain_state\{chain_id="(\d+)",state="running"\} 1/g)].length;
    expect(running).toBe(8);
  });
});
