/**
 * Execution-layer sync against real pieces: the virtual node in `execution-layer` mode drives a simulated execution
 * client over the JWT Engine API (EngineRpcClient); the client answers SYNCING for payloads far ahead of it, fetches
 * the missing chain from the sequencer's client (devnet sync source), answers VALID, and the node finishes EL sync
 * with safe = finalized = the tip on the client's forkchoice.
 */
import { afterEach, describe, expect, it } from "vitest";
import { toyNodeConfig } from "./toy-node.js";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { L1BlockRef } from "../../../src/core/types/block-ref.js";
import type { SimulatedExecutionClient } from "supernode-devnet/el";
import { ElSyncSource, httpBlockFetcher } from "supernode-devnet/el/sync-source";
import { EngineRpcClient } from "../../../src/io/engine/engine-rpc-client.js";
import { ChainNode } from "../../../src/node/chain-node.js";
import { l2RefFromPayload } from "../../../src/node/derivation/l2-block.js";
import type { AttributesBuilder, DerivationPipeline } from "../../../src/node/derivation/types.js";
import type { ExecutionPayloadEnvelope } from "../../../src/node/ports.js";
import {
  GENESIS_TIME,
  SECRET,
  buildAndSeal,
  jovianAttrs,
  l1InfoDeposit,
  l1InfoJovian,
  startEl,
} from "supernode-devnet/test-support/el-support";
import { EVERY_FORK_AT_GENESIS } from "../../support/fork-times.js";
import { FakeL1, MemorySafeDb, testRollupConfig, waitFor } from "./fakes.js";

const els: SimulatedExecutionClient[] = [];
const nodes: ChainNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.stop();
  for (const e of els.splice(0)) await e.stop();
});

describe("EL sync with the simulated execution client over the Engine API", () => {
  it("SYNCING while the client fetches the chain, VALID once it has it, then safe = finalized = tip", async () => {
    const sequencerEl = await startEl();
    const syncingEl = await startEl();
    els.push(sequencerEl, syncingEl);
    const cfg = testRollupConfig({
      genesis: {
        ...testRollupConfig().genesis,
        l2: { hash: sequencerEl.genesisHash, number: 0 },
        l2_time: GENESIS_TIME,
      },
      ...EVERY_FORK_AT_GENESIS,
    });
    for (let k = 1; k <= 8; k++) {
      const l1info = l1InfoDeposit(l1InfoJovian({ number: k, time: GENESIS_TIME + k, seq: 0 }), k);
      await buildAndSeal(sequencerEl, jovianAttrs(GENESIS_TIME + 2 * k, [l1info]));
    }
    const client = (url: string) =>
      EngineRpcClient.create(
        { url, jwtSecret: SECRET, kind: "variant_b", rollupConfig: cfg },
        { clock: systemClock, logger: silentLogger },
      );
    const source = client(sequencerEl.authUrl);
    const payload = async (n: number): Promise<ExecutionPayloadEnvelope> => (await source.payloadByNumber(n))!;

    const engine = client(syncingEl.authUrl);
    const l1 = new FakeL1(0); // the origins (L1 blocks 1..8) are "ahead" of this L1 view
    const idle: DerivationPipeline = {
      origin: l1.blocks[0]! as L1BlockRef,
      step: async () => ({ kind: "eof" }),
      reset: async () => {},
      invalidated: () => undefined,
    };
    const node = await ChainNode.create(toyNodeConfig(cfg, { syncMode: "execution-layer" }), {
      l1,
      engine,
      safeDb: new MemorySafeDb(),
      clock: systemClock,
      logger: silentLogger,
      createPipeline: () => idle,
      attributesBuilder: {} as AttributesBuilder,
      refFromPayload: (env) => l2RefFromPayload(cfg, env),
    });
    await node.start();
    nodes.push(node);

    // With the wiring (engine-el-sync-wiring.diff) the client starts syncing by itself when it answers SYNCING.
    const sync = new ElSyncSource(syncingEl.core, httpBlockFetcher(sequencerEl.httpUrl), silentLogger);
    syncingEl.core.syncSource = sync;
    expect(node.addUnsafePayload(await payload(6))).toBe(true);
    await waitFor(() => node.syncStatus().unsafe_l2.number === 6, 10_000);
    expect(node.elSync.status).toBe("started");
    await waitFor(() => sync.imported === 6, 10_000);

    expect(node.addUnsafePayload(await payload(7))).toBe(true);
    await waitFor(() => node.elSync.status === "finished", 10_000);
    await waitFor(() => syncingEl.core.chain.finalized.header.number === 7, 10_000);
    const s = node.syncStatus();
    expect([s.unsafe_l2.number, s.safe_l2.number, s.finalized_l2.number]).toEqual([7, 7, 7]);
    expect(syncingEl.head.hash).toBe(sequencerEl.core.chain.byNumber(7)!.hash);
    expect(syncingEl.core.chain.safe.hash).toBe(s.safe_l2.hash);

    // After EL sync (syncmode.req-resp off) payloads keep going straight to the client.
    expect(node.addUnsafePayload(await payload(8))).toBe(true);
    await waitFor(() => node.syncStatus().unsafe_l2.number === 8, 10_000);
    expect(node.syncStatus().unsafe_l2.hash).toBe(sequencerEl.head.hash);
    expect(syncingEl.head.hash).toBe(sequencerEl.head.hash);
  });
});
