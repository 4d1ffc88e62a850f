/**
 * The interop wiring of the composition root with fake chains: the activity runs over the supervised chains, its
 * stores live under the data directory, `supernode_syncStatus` reports it, `superroot_atTimestamp` answers `data`
 * only for verified timestamps, and its metrics are exported.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Supernode } from "../../../src/app/supernode.js";
import type { ChainService } from "../../../src/app/chain-service.js";
import type { ChainConfig } from "../../../src/config/types.js";
import type { L1Source } from "../../../src/node/ports.js";
import {
  FakeChainControl,
  fakeConfig,
  fakeHashing,
  fastSupervisor,
  hash,
  rpc,
  testLogger,
  waitFor,
} from "./fake-chains.js";

let node: Supernode | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await node?.stop();
  node = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const hex = (n: number) => `0x${n.toString(16)}`;

function withInterop(ctl: FakeChainControl) {
  return async (attempt: number): Promise<ChainService> => {
    const inst = await ctl.factory(attempt);
    const tagOf = (n: number) => Number(ctl.chainId) * 1_000_000 + n;
    return Object.assign(inst, {
      interop: {
        async blockLogs(h: string) {
          for (let n = 0; n <= ctl.head; n++) {
            if (hash(tagOf(n)) !== h) continue;
            const block = { hash: h, number: n, parentHash: hash(tagOf(n - 1)), timestamp: ctl.genesisTime + 2 * n };
            return { block, receipts: [] };
          }
          return undefined;
        },
        async blockLogsAt() {
          return undefined;
        },
        async invalidate() {
          throw new Error("unexpected invalidation");
        },
        async pruneDenied() {},
      },
    }) as ChainService;
  };
}

describe("Supernode with interop", () => {
  it("verifies the fake chains and reports the activity", async () => {
    const dir = mkdtempSync(join(tmpdir(), "supernode-interop-"));
    dirs.push(dir);
    const ctls = [new FakeChainControl(10n), new FakeChainControl(420n)];
    const base = fakeConfig(
      ctls.map((c) => c.chainId),
      { metrics: true },
    );
    const config = {
      ...base,
      dataDir: dir,
      interopActivationTimestamp: 1000,
      chainConfigs: base.chainConfigs.map(
        (c) =>
          ({
            ...c,
            dataDir: join(dir, `chain-${c.chainId}`),
            rollup: { block_time: 2, genesis: { l2_time: 1000, l2: { number: 0 } } },
          }) as unknown as ChainConfig,
      ),
    };
    const l1 = {
      l1BlockRefByNumber: async (n: number) => ({ hash: hash(n), number: n, parentHash: hash(n - 1), timestamp: n }),
    } as unknown as L1Source;
    node = await Supernode.start(config, {
      logger: testLogger,
      buildChains: async () => ({
        factories: new Map(ctls.map((c) => [c.chainId, withInterop(c)])),
        l1,
        close: async () => {},
      }),
      hashing: fakeHashing,
      supervisor: fastSupervisor,
    });
    const sn = node;
    const status = async () =>
      (await rpc(`${sn.rpc.url}/`, "supernode_syncStatus")).result as { interop: Record<string, unknown> };
    // head 10 at 2 s blocks: timestamps 1000..1021 are local-safe on both chains.
    await waitFor(async () => (await status()).interop.verified_timestamp === 1021, 20_000);
    expect((await status()).interop).toMatchObject({ activation_timestamp: 1000, error: null });

    const at = async (ts: number) =>
      (await rpc(`${sn.rpc.url}/`, "superroot_atTimestamp", [hex(ts)])).result as Record<string, unknown>;
    expect(await at(1010)).toHaveProperty("data");
    expect(await at(1022)).not.toHaveProperty("data");

    const metrics = await (await fetch(`${sn.metricsServer!.url}/metrics`)).text();
    expect(metrics).toMatch(/^supernode_interop_verified_timestamp 1021$/m);
    expect(metrics).toMatch(/^supernode_interop_timestamps_verified_total 22$/m);
    expect(metrics).toMatch(/^supernode_activity_up\{activity="interop"\} 1$/m);
  });
});
