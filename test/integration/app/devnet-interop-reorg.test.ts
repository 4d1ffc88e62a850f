import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevnetSupernode, startDevnetSupernode } from "supernode-devnet";
import type { Logger } from "../../../src/core/logger.js";
import { call, type L2Ref, metricValue, waitFor } from "../../support/devnet-rpc.js";
import { interopDevnetOptions } from "../../support/interop-devnet.js";

/**
 * `supernode-devnet --interop` and an L1 reorg (real anvil, `anvil_reorg`) inside L1 finality (16 slots an epoch:
 * finalized = head − 32): the reorg replaces L1 blocks holding batches of L2 blocks the supernode had already
 * verified; the interop activity rewinds its verified results, then re-verifies past where it was, and no chain's
 * safe head ends above its local-safe head.
 */
type ChainStatus = { safe_l2: L2Ref; local_safe_l2: L2Ref };
type InteropStatus = { state: string; verified_timestamp: number; last_decision: string | null; error: string | null };

const logs: string[] = [];
const warnings = () => `warnings:\n${logs.join("\n")}`;

/** Keeps the supernode's warnings and errors (message and context) for assertions and failure reports. */
function recordingLogger(lines: string[]): Logger {
  const keep =
    (level: string) =>
    (a: object | string, b?: string): void => {
      lines.push(typeof a === "string" ? `${level} ${a}` : `${level} ${b ?? ""} ${JSON.stringify(a)}`);
    };
  const drop = () => {};
  const log: Logger = {
    trace: drop,
    debug: drop,
    info: drop,
    warn: keep("warn"),
    error: keep("error"),
    child: () => log,
  };
  return log;
}

describe("supernode-devnet --interop and an L1 reorg", () => {
  let dir: string;
  let dn: DevnetSupernode | undefined;

  const rpcUrl = () => dn!.supernode.rpc.url;
  const chainStatus = async (chain: string): Promise<ChainStatus> => {
    const r = await call(`${rpcUrl()}/${chain}/`, "stack_syncStatus");
    if (r.result === undefined) throw new Error(r.error?.message ?? "no status");
    return r.result as ChainStatus;
  };
  const interop = async (): Promise<InteropStatus> => {
    const r = await call(`${rpcUrl()}/`, "supernode_syncStatus");
    const st = (r.result as { interop?: InteropStatus } | undefined)?.interop;
    if (st === undefined) throw new Error("no interop status");
    return st;
  };
  const metric = async (name: string): Promise<number> => {
    const url = dn!.supernode.metricsServer?.url;
    if (url === undefined) throw new Error("metrics disabled");
    return metricValue(url, name);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-devnet-interop-reorg-"));
    dn = await startDevnetSupernode(interopDevnetOptions(dir, { l1SlotsInAnEpoch: 16 }), {
      logger: recordingLogger(logs),
    });
  }, 120_000);

  afterAll(async () => {
    await dn?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("rewinds verified results whose L1 inclusion was reorged out, then verifies past them again", async () => {
    const anvil = dn!.devnet.l1Node.anvil;
    const l1Head = async () => Number(BigInt((await anvil.getBlock("latest")).number));
    const activation = dn!.devnet.chains[0]!.rollupConfig.lagoon_time!;
    // some timestamps verified, messages executed both ways, and an L1 long enough for a 12-block reorg above genesis
    await waitFor(
      "timestamps verified, messages executed and L1 head ≥ 14",
      async () =>
        (await interop()).verified_timestamp >= activation + 6 &&
        dn!.traffic!.stats().executed >= 2 &&
        (await l1Head()) >= 14
          ? true
          : undefined,
      30_000,
      warnings,
    );
    const rewinds0 = await metric("supernode_interop_rewinds_total");
    const before = await interop();
    const head = await l1Head();
    const finalized = Number(BigInt((await anvil.getBlock("finalized")).number));
    // deep enough to hold the batches of the latest verified blocks, never reaching a finalized L1 block
    const depth = Math.min(head - finalized - 2, 12);
    expect(depth).toBe(12);
    const replaced = (await anvil.getBlock(head - depth + 1)).hash;
    // the replaced L1 blocks hold batches (transactions to a chain's batch inbox)
    const inboxes = new Set(dn!.devnet.chains.map((c) => c.rollupConfig.batch_inbox_address.toLowerCase()));
    let batches = 0;
    for (let n = head - depth + 1; n <= head; n++) {
      const r = await call(dn!.devnet.l1.rpcUrl, "eth_getBlockByNumber", [`0x${n.toString(16)}`, true]);
      const txs = (r.result as { transactions: Array<{ to: string | null }> }).transactions;
      batches += txs.filter((t) => t.to !== null && inboxes.has(t.to.toLowerCase())).length;
    }
    expect(batches).toBeGreaterThan(0);
    await anvil.reorg(depth);
    expect((await anvil.getBlock(head - depth + 1)).hash).not.toBe(replaced);

    // the interop activity notices that verified results lost their L1 inclusion and rewinds them
    await waitFor(
      "an interop rewind",
      async () => ((await metric("supernode_interop_rewinds_total")) > rewinds0 ? true : undefined),
      15_000,
      warnings,
    );
    // re-verification: the verified timestamp passes where it was before the reorg
    await waitFor(
      "re-verification past the verified timestamp of before the reorg",
      async () => ((await interop()).verified_timestamp > before.verified_timestamp ? true : undefined),
      15_000,
      warnings,
    );
    // the rewind went back to (at most) the verified head of before the reorg
    const rewound = logs.find((l) => l.includes("verified results lost their L1 inclusion; rewinding"));
    expect(rewound, logs.join("\n")).toBeDefined();
    const at = Number(/"rewindAtOrAfter":(\d+)/.exec(rewound!)?.[1]);
    expect(at).toBeGreaterThan(activation);
    expect(at).toBeLessThanOrEqual(before.verified_timestamp);
    const st = await interop();
    expect(st.state).not.toBe("halted");
    expect(st.error).toBeNull();
    for (const chain of ["901", "902"]) {
      const s = await chainStatus(chain);
      expect(s.safe_l2.number).toBeLessThanOrEqual(s.local_safe_l2.number);
    }
    expect(dn!.traffic!.stats().errors).toBe(0);
  }, 90_000);
});
