import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../../src/core/time/clock.js";
import type { ChainNode } from "../../../src/node/chain-node.js";
import type { ExecutionPayloadEnvelope } from "../../../src/node/ports.js";
import { buildL2Chain, FakeEngine, FakeL1, GENESIS_TIME, testRollupConfig, waitFor } from "./fakes.js";
import { startToyNode, toyNodeConfig } from "./toy-node.js";

const cfg = testRollupConfig();
const running: ChainNode[] = [];
afterEach(async () => {
  for (const n of running.splice(0)) await n.stop();
});

describe("unsafe gaps with syncmode.req-resp", () => {
  it("asks the gap filler for (unsafe head, first queued) and inserts what comes back", async () => {
    const l1 = new FakeL1(12);
    const source = new FakeEngine(cfg);
    await buildL2Chain(source, l1, 6);
    const at = (n: number): ExecutionPayloadEnvelope => source.byHash.get(source.canonical[n] as `0x${string}`)!;
    const calls: { from: number; to: number; parentHash: string }[] = [];
    let node: ChainNode | undefined;
    node = await startToyNode({
      l1: new FakeL1(0),
      engine: new FakeEngine(cfg),
      // The chain's clock close to its (early) genesis, so the gap is not older than 12 h.
      clock: { nowMs: () => (GENESIS_TIME + 60) * 1000, sleep: systemClock.sleep },
      config: toyNodeConfig(cfg, { syncModeReqResp: true }),
      extra: {
        gapFiller: {
          requestRange: (from, to) => {
            calls.push({ from, to: to.number, parentHash: to.parentHash });
            // What the P2P layer does: deliver the blocks of the gap to the node.
            for (let n = to.number - 1; n > from; n--) node?.addUnsafePayload(at(n));
          },
        },
      },
    });
    running.push(node);
    node.addUnsafePayload(at(5));
    await waitFor(() => calls.length > 0);
    expect(calls[0]).toEqual({ from: 0, to: 5, parentHash: at(5).executionPayload.parentHash });
    await waitFor(() => node?.syncStatus().unsafe_l2.number === 5);
  });
});
