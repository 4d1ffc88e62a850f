/**
 * The ecosystem's names on a chain route of a real Fastify server: `optimism_*` beside the specification's
 * `stack_*`, with op-node's shapes where they differ (op-service/eth/output.go, sync_status.go).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainMethodTable } from "../../../src/app/chain-factory.js";
import { silentLogger } from "../../../src/core/logger.js";
import type { ChainNode } from "../../../src/node/chain-node.js";
import { mergeMethodTables } from "../../../src/rpc/method-table.js";
import { createChainRpcMethods } from "../../../src/rpc/namespaces/stack.js";
import { createUpstreamShapeMethods } from "../../../src/rpc/namespaces/upstream.js";
import { RpcServer } from "../../../src/rpc/server.js";
import { FakeEngine, FakeL1, testRollupConfig, waitFor } from "../../unit/node/fakes.js";
import { startToyNode, toyNodeConfig } from "../../unit/node/toy-node.js";

const cfg = testRollupConfig();
let node: ChainNode;
let server: RpcServer;

beforeAll(async () => {
  node = await startToyNode({ l1: new FakeL1(5), engine: new FakeEngine(cfg), config: toyNodeConfig(cfg) });
  await waitFor(() => node.syncStatus().safe_l2.number === 5);
  const own = mergeMethodTables(
    createChainRpcMethods(node, { version: "v0.1.0-test" }),
    createUpstreamShapeMethods(node),
  );
  const table = chainMethodTable(own, undefined, false);
  server = await RpcServer.listen(
    { addr: "127.0.0.1", port: 0, enableAdmin: false, version: "v0.1.0-test" },
    {
      root: mergeMethodTables(),
      chains: {
        tableOf: (id) => (id === String(cfg.l2_chain_id) ? table : undefined),
        chainIds: () => [String(cfg.l2_chain_id)],
      },
      readiness: () => ({ ready: true, chains: {} }),
      logger: silentLogger,
    },
  );
});
afterAll(async () => {
  await server?.close(500);
  await node?.stop();
});

async function rpc(method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number } }> {
  const res = await fetch(`${server.url}/${cfg.l2_chain_id}/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number } };
}

const L2_REF_KEYS = ["hash", "number", "parentHash", "timestamp", "l1origin", "sequenceNumber"];
const UPSTREAM_STATUS_KEYS = [
  "current_l1",
  "current_l1_finalized",
  "head_l1",
  "safe_l1",
  "finalized_l1",
  "unsafe_l2",
  "safe_l2",
  "finalized_l2",
  "pending_safe_l2",
  "cross_unsafe_l2",
  "local_safe_l2",
];

describe("optimism_* beside stack_* on a chain route", () => {
  it("optimism_outputAtBlock answers op-node's object; stack_outputAtBlock keeps [version, outputRoot]", async () => {
    const spec = (await rpc("stack_outputAtBlock", ["0x3"])).result as string[];
    const up = (await rpc("optimism_outputAtBlock", ["0x3"])).result as Record<string, unknown>;
    expect(spec).toHaveLength(2);
    expect(Object.keys(up)).toEqual([
      "version",
      "outputRoot",
      "blockRef",
      "withdrawalStorageRoot",
      "stateRoot",
      "syncStatus",
    ]);
    expect([up.version, up.outputRoot]).toEqual(spec);
    const ref = up.blockRef as Record<string, unknown>;
    expect(Object.keys(ref)).toEqual(L2_REF_KEYS);
    expect(ref.number).toBe(3);
    expect(Object.keys(up.syncStatus as object)).toEqual(UPSTREAM_STATUS_KEYS);
    expect(up.stateRoot).toMatch(/^0x[0-9a-f]{64}$/);
    expect(up.withdrawalStorageRoot).toMatch(/^0x[0-9a-f]{64}$/);
    // A JSON number is rejected as op-node does (-32602), under both names.
    expect((await rpc("optimism_outputAtBlock", [3])).error?.code).toBe(-32602);
  });

  it("optimism_syncStatus has op-node's eleven fields; stack_syncStatus keeps the specification's extras", async () => {
    const up = (await rpc("optimism_syncStatus")).result as Record<string, unknown>;
    const spec = (await rpc("stack_syncStatus")).result as Record<string, unknown>;
    expect(Object.keys(up)).toEqual(UPSTREAM_STATUS_KEYS);
    expect(Object.keys(spec)).toContain("queued_unsafe_l2");
    expect((up.safe_l2 as { number: number }).number).toBe((spec.safe_l2 as { number: number }).number);
  });

  it("optimism_rollupConfig, optimism_version and optimism_safeHeadAtL1Block answer as their stack_ names", async () => {
    for (const [m, params] of [
      ["rollupConfig", []],
      ["version", []],
      ["safeHeadAtL1Block", ["0x5"]],
    ] as const) {
      const up = await rpc(`optimism_${m}`, [...params]);
      expect(up.error, m).toBeUndefined();
      expect(up.result, m).toEqual((await rpc(`stack_${m}`, [...params])).result);
    }
    expect((await rpc("optimism_version")).result).toBe("v0.1.0-test");
  });

  it("rpc_modules lists both namespaces", async () => {
    const modules = (await rpc("rpc_modules")).result as Record<string, string>;
    expect(Object.keys(modules)).toEqual(expect.arrayContaining(["stack", "optimism"]));
  });
});
