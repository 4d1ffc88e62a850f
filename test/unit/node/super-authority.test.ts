/**
 * The super authority (interop): before activation `safe` follows local-safe; from activation on it follows the
 * newest verified block (never above local-safe), and `finalized` only what was verified with finalized L1 data.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { BlockId } from "../../../src/core/types/block-ref.js";
import type { ChainNode } from "../../../src/node/chain-node.js";
import type { SuperAuthority } from "../../../src/node/ports.js";
import { FakeEngine, FakeL1, GENESIS_TIME, testRollupConfig, waitFor } from "./fakes.js";
import { startToyNode, toyNodeConfig } from "./toy-node.js";

const cfg = testRollupConfig();
const ACTIVATION = GENESIS_TIME + 2 * 5; // L2 block 5
const running: ChainNode[] = [];
afterEach(async () => {
  for (const n of running.splice(0)) await n.stop();
});

describe("super authority", () => {
  it("holds safe at the last pre-activation block until blocks are verified, then follows them", async () => {
    const l1 = new FakeL1(12);
    const engine = new FakeEngine(cfg);
    let verified: BlockId | undefined;
    let verifiedAtFinalL1: BlockId | undefined;
    const authority: SuperAuthority = {
      isActiveAt: (ts) => ts >= ACTIVATION,
      verifiedHead: async () => verified,
      verifiedAtL1: async () => verifiedAtFinalL1,
    };
    const node = await startToyNode({ l1, engine, config: toyNodeConfig(cfg), extra: { superAuthority: authority } });
    running.push(node);
    await waitFor(() => node.syncStatus().local_safe_l2.number === 12);
    expect(node.syncStatus().safe_l2.number).toBe(4);

    const b7 = (await engine.l2BlockRefByNumber(7))!;
    verified = { hash: b7.hash, number: 7 };
    await waitFor(() => node.syncStatus().safe_l2.number === 7);
    expect(node.syncStatus().safe_l2.hash).toBe(b7.hash);

    // A verified head beyond local-safe is capped at local-safe.
    verified = { hash: `0x${"ee".repeat(32)}`, number: 50 };
    await waitFor(() => node.syncStatus().safe_l2.number === 12);

    // Finality: L1 finalizes everything, but only the block verified with finalized L1 data becomes final.
    const b6 = (await engine.l2BlockRefByNumber(6))!;
    verifiedAtFinalL1 = { hash: b6.hash, number: 6 };
    l1.finalizedNumber = 12;
    await waitFor(() => node.syncStatus().finalized_l2.number === 6);
    expect(node.syncStatus().finalized_l2.hash).toBe(b6.hash);
  });

  it("changes nothing while interop is not active", async () => {
    const l1 = new FakeL1(6);
    const engine = new FakeEngine(cfg);
    const authority: SuperAuthority = {
      isActiveAt: () => false,
      verifiedHead: async () => undefined,
      verifiedAtL1: async () => undefined,
    };
    const node = await startToyNode({ l1, engine, config: toyNodeConfig(cfg), extra: { superAuthority: authority } });
    running.push(node);
    await waitFor(() => node.syncStatus().safe_l2.number === 6);
    expect(node.syncStatus().local_safe_l2.number).toBe(6);
  });
});
