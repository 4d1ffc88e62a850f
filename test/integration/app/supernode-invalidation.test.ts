/**
 * Invalidation through the real composition: a `Supernode` with interop over two virtual nodes (real `ChainNode`s on
 * the port fakes, real LevelDB deny lists, the real chain access of app/chain-factory.ts). Chain 902 executes a
 * message whose initiating log does not exist: the activity invalidates the block, the chain denies it, rewinds,
 * derives the deposits-only replacement, and both chains go on being verified; the activity is never halted. Only
 * the offending transaction is denied, not the other transaction of that block. Chain 902's deny list is held by
 * another handle when the supernode starts: it opens in the background, so the chain's RPC answers meanwhile, and
 * the chain inserts nothing until the list is open.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { blockAt, interopAccess } from "../../../src/app/chain-factory.js";
import type { ChainService } from "../../../src/app/chain-service.js";
import type { ChainBuildContext } from "../../../src/app/supernode.js";
import { Supernode } from "../../../src/app/supernode.js";
import type { ChainConfig } from "../../../src/config/types.js";
import type { Hex } from "../../../src/core/types/primitives.js";
import { Level } from "level";
import { chainMethodTable } from "../../../src/app/chain-factory.js";
import { DenyList } from "../../../src/io/db/deny-list.js";
import { ChainNode } from "../../../src/node/chain-node.js";
import { txHash } from "../../../src/node/denied-txs.js";
import { createChainRpcMethods } from "../../../src/rpc/namespaces/stack.js";
import type { Log } from "../../../src/protocol/block/receipt.js";
import { encodeExecutingMessageLog } from "../../../src/protocol/interop/messages.js";
import { ReceiptEngine } from "../interop/receipt-engine.js";
import {
  FakeL1,
  GENESIS_TIME,
  MemorySafeDb,
  ToyPipeline,
  fakeAttributesBuilder,
  testRollupConfig,
} from "../../unit/node/fakes.js";
import { toyNodeConfig } from "../../unit/node/toy-node.js";
import { fakeHashing, fakeInteropConfig, fastSupervisor, rpc, testLogger, waitFor } from "./fake-chains.js";

let node: Supernode | undefined;
const dirs: string[] = [];
const holders: Level<Uint8Array, Uint8Array>[] = [];
afterEach(async () => {
  await node?.stop();
  node = undefined;
  for (const h of holders.splice(0)) await h.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const BAD_TX: Hex = "0x02bad0";
const OTHER_TX: Hex = "0x02600d";

describe("Supernode with interop: an invalid executing message", () => {
  it("invalidates the block, replaces it, and both chains go on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "supernode-invalidation-"));
    dirs.push(dir);
    const l1 = new FakeL1(10);
    const ids = [901n, 902n];
    const rollups = new Map(ids.map((id) => [id, testRollupConfig({ l2_chain_id: id })]));
    // Chain 902's block 3 executes a message claiming log 7 of chain 901's block 1, which has no logs.
    const logsOf = new Map<Hex, Log[]>([
      [
        BAD_TX,
        [
          encodeExecutingMessageLog({
            id: {
              origin: `0x${"ab".repeat(20)}`,
              blockNumber: 1,
              logIndex: 7,
              timestamp: GENESIS_TIME + 2,
              chainId: 901n,
            },
            payloadHash: `0x${"cd".repeat(32)}`,
          }),
        ],
      ],
    ]);
    const engines = new Map(ids.map((id) => [id, new ReceiptEngine(rollups.get(id)!, logsOf)]));

    const config = fakeInteropConfig(ids, dir, { activation: GENESIS_TIME, rollupOf: (id) => rollups.get(id) });
    const chainConfigs = config.chainConfigs;

    // Another handle holds chain 902's deny list until the test lets go of it.
    const holder = new Level<Uint8Array, Uint8Array>(join(dir, "chain-902", "denylist"), {
      keyEncoding: "view",
      valueEncoding: "view",
    });
    await holder.open();
    holders.push(holder);
    const lists = new Map<bigint, DenyList>();
    const factory = (chain: ChainConfig, ctx: ChainBuildContext) => async (): Promise<ChainService> => {
      const engine = engines.get(chain.chainId)!;
      const safeDb = new MemorySafeDb();
      const list = DenyList.openInBackground(join(chain.dataDir, "denylist"));
      lists.set(chain.chainId, list);
      const builder = fakeAttributesBuilder(chain.rollup, l1);
      const pipeline = new ToyPipeline(chain.rollup, l1, builder);
      if (chain.chainId === 902n) pipeline.batchTxs.set(3, [OTHER_TX, BAD_TX]);
      const cn = await ChainNode.create(toyNodeConfig(chain.rollup), {
        l1,
        engine,
        safeDb,
        clock: ctx.clock,
        logger: ctx.logger,
        createPipeline: () => pipeline,
        attributesBuilder: builder,
        refFromPayload: engine.refOf,
        superAuthority: ctx.superAuthorityFor?.(chain.chainId),
        denyList: list,
      });
      return {
        methods: chainMethodTable(createChainRpcMethods(cn, { version: "test" }), undefined, false),
        exited: new Promise<void>(() => {}),
        start: () => cn.start(),
        stop: async () => {
          await cn.stop();
          await list.close();
        },
        syncStatus: async () => cn.syncStatus(),
        blockAtTimestamp: (ts: number) => blockAt(cn, safeDb, chain, ts),
        firstSafeTimestamp: async () => {
          const first = [...safeDb.entries.keys()].sort((a, b) => a - b)[0];
          const e = first === undefined ? undefined : safeDb.entries.get(first);
          return e === undefined ? undefined : GENESIS_TIME + 2 * e.safeHead.number;
        },
        health: () => cn.health(),
        interop: interopAccess(cn, {
          l2BlockRefByHash: (h) => engine.l2BlockRefByHash(h),
          l2BlockRefByNumber: (n) => engine.l2BlockRefByNumber(n),
          blockReceipts: (h) => engine.blockReceipts(h),
          payloadByHash: (h) => engine.payloadByHash(h),
        }),
      } as unknown as ChainService;
    };

    node = await Supernode.start(config, {
      logger: testLogger,
      buildChains: async (_cfg, ctx) => ({
        factories: new Map(chainConfigs.map((c) => [c.chainId, factory(c, ctx)])),
        l1,
        close: async () => {},
      }),
      hashing: fakeHashing,
      supervisor: fastSupervisor,
    });
    const sn = node;
    const status = async () =>
      (await rpc(`${sn.rpc.url}/`, "supernode_syncStatus")).result as { interop: Record<string, unknown> };
    const chainStatus = async (id: bigint) =>
      (await rpc(`${sn.rpc.url}/${id}/`, "stack_syncStatus")).result as {
        local_safe_l2: { number: number };
        unsafe_l2: { number: number };
      };

    // 902's RPC answers while its deny list cannot open; it inserts nothing meanwhile, 901 goes on.
    await waitFor(async () => (await chainStatus(901n)).local_safe_l2.number >= 4, 30_000);
    const waiting = await chainStatus(902n);
    expect(waiting.unsafe_l2.number).toBe(0);
    expect(engines.get(902n)!.canonical.length).toBe(1);
    await holder.close();

    // L2 blocks 0..10 at 2 s: timestamps 1000..1021 become verifiable on both chains once block 3 is replaced.
    await waitFor(async () => (await status()).interop.verified_timestamp === GENESIS_TIME + 21, 30_000);
    const e902 = engines.get(902n)!;
    const replacement = e902.byHash.get(e902.canonical[3]!)!.executionPayload;
    expect(replacement.transactions).not.toContain(BAD_TX);
    expect(replacement.transactions.every((t) => t.startsWith("0x7e"))).toBe(true);
    // The original block 3 (with the message) was built, inserted, then replaced.
    const original = [...e902.byHash.values()].find(
      (e) => e.executionPayload.blockNumber === 3 && e.executionPayload.transactions.includes(BAD_TX),
    );
    expect(original).toBeDefined();
    expect(e902.canonical[3]).not.toBe(original!.executionPayload.blockHash);
    expect(replacement.parentHash).toBe(original!.executionPayload.parentHash);
    expect(e902.byHash.get(e902.canonical[4]!)!.executionPayload.parentHash).toBe(replacement.blockHash);
    expect((await status()).interop).toMatchObject({ error: null });
    expect((await status()).interop.state).not.toBe("halted");

    // Only the offending transaction is denied; the block's other transaction is not.
    expect(
      lists
        .get(902n)!
        .atHeight(3)
        .map((r) => r.txHashes),
    ).toEqual([[txHash(BAD_TX)]]);

    const metrics = await (await fetch(`${sn.metricsServer!.url}/metrics`)).text();
    expect(metrics).toMatch(/^supernode_interop_invalidations_total\{chain_id="902"\} 1$/m);
    expect(metrics).toMatch(/^supernode_interop_denylist_entries_total\{chain_id="902"\} 1$/m);
    expect(metrics).not.toMatch(/^supernode_interop_invalidations_total\{chain_id="901"\} [1-9]/m);
    expect(metrics).toMatch(/^supernode_interop_activity_state\{state="halted"\} 0$/m);
  });
});
