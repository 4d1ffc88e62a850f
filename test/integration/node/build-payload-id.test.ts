/**
 * Derived blocks built against the simulated EL (op-geth's payload ids) through the real EngineRpcClient and
 * EngineController, with a counting node:http proxy in front of the EL: getPayload rides in the build start's
 * request when the id is predicted (one HTTP request per derived block); a miss (the EL returns other ids, or its
 * batched getPayload fails) falls back to a separate getPayload, builds the same blocks, stops prediction and counts
 * the miss; the sequencer's blocks never batch their getPayload (docs/performance.md).
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { L1BlockRef, L2BlockRef } from "../../../src/core/types/block-ref.js";
import type { Hex } from "../../../src/core/types/primitives.js";
import type { SimulatedExecutionClient } from "supernode-devnet/el";
import { EngineRpcClient } from "../../../src/io/engine/engine-rpc-client.js";
import { EngineController } from "../../../src/node/engine/engine-controller.js";
import { createChainMetrics, payloadIdPredictionCounter } from "../../../src/app/chain-metrics.js";
import type { PayloadAttributes } from "../../../src/node/ports.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import {
  FEE_RECIPIENT,
  GENESIS_TIME,
  SECRET,
  l1InfoDeposit,
  l1InfoJovian,
  signTransfer,
  startEl,
} from "supernode-devnet/test-support/el-support";
import { EVERY_FORK_AT_GENESIS } from "../../support/fork-times.js";
import { attributesFromHex } from "../../../src/protocol/l2/attributes.js";

const L1: L1BlockRef = { hash: `0x${"11".repeat(32)}`, number: 100, parentHash: `0x${"10".repeat(32)}`, timestamp: 1 };

function attributesOf(n: number, txs: Hex[], noTxPool = true): PayloadAttributes {
  const ts = GENESIS_TIME + 2 * n;
  return attributesFromHex(
    {
      timestamp: ts,
      prevRandao: `0x${"ab".repeat(32)}`,
      suggestedFeeRecipient: FEE_RECIPIENT,
      withdrawals: [],
      parentBeaconBlockRoot: `0x${"cd".repeat(32)}`,
      noTxPool,
      gasLimit: 30_000_000n,
      eip1559Params: "0x000000fa00000006",
      minBaseFee: 0n,
    },
    [l1InfoDeposit(l1InfoJovian({ number: 100, time: ts - 1, seq: n }), n), ...txs],
  );
}

type Mode = "plain" | "other-ids" | "getPayload-first" | "forkchoice-first" | "refused" | "drop-first-batch";

/**
 * A node:http proxy on port 0 in front of the EL's auth endpoint. Records the methods of each request. "other-ids":
 * the EL's payload ids are handed out changed (last byte flipped) and mapped back on the way in, as an EL with
 * another id rule would; "getPayload-first": a batch's getPayload runs first, as in an EL that runs a batch's calls
 * concurrently (it then does not know the id yet); "forkchoice-first": a batch's forkchoice update after a newPayload
 * is answered SYNCING, as an EL that ran it first (not knowing the head yet) answers it; "refused": a batch is
 * answered with one JSON-RPC error; "drop-first-batch": the connection of the first batch is cut (no answer).
 */
class CountingProxy {
  readonly requests: string[][] = [];
  private dropped = false;
  private server: Server | undefined;
  url = "";

  constructor(
    private readonly target: string,
    private readonly mode: Mode,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server === undefined ? r() : this.server.close(() => r())));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
    const items = (Array.isArray(body) ? body : [body]) as { method: string; params: unknown[] }[];
    this.requests.push(items.map((i) => i.method));
    if (this.mode === "other-ids") {
      for (const i of items) if (i.method.startsWith("engine_getPayload")) i.params[0] = flip(i.params[0] as string);
    }
    let sent: unknown = body;
    if (this.mode === "drop-first-batch" && Array.isArray(body) && !this.dropped) {
      this.dropped = true;
      req.socket.destroy();
      return;
    }
    if (this.mode === "refused" && Array.isArray(body)) {
      const refusal = {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "batch requests are not supported" },
      };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(refusal));
      return;
    }
    if (this.mode === "getPayload-first" && Array.isArray(body)) {
      const gp = items.filter((i) => i.method.startsWith("engine_getPayload"));
      sent = [...gp, ...items.filter((i) => !gp.includes(i))];
    }
    const r = await fetch(this.target, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: req.headers.authorization ?? "" },
      body: JSON.stringify(sent),
    });
    let text = await r.text();
    if (this.mode === "other-ids") {
      const out = JSON.parse(text) as unknown;
      for (const o of (Array.isArray(out) ? out : [out]) as { result?: { payloadId?: string | null } }[]) {
        const id = o.result?.payloadId;
        if (typeof id === "string") o.result!.payloadId = flip(id);
      }
      text = JSON.stringify(out);
    }
    if (this.mode === "forkchoice-first" && items[0]?.method.startsWith("engine_newPayload") && items.length > 1) {
      const out = JSON.parse(text) as { result?: { payloadStatus?: unknown; payloadId?: unknown } }[];
      const fc = out.find((o) => o.result?.payloadStatus !== undefined);
      if (fc !== undefined)
        fc.result = { payloadStatus: { status: "SYNCING", latestValidHash: null }, payloadId: null };
      text = JSON.stringify(out);
    }
    res.writeHead(r.status, { "content-type": "application/json" }).end(text);
  }
}

function flip(id: string): string {
  const last = Number.parseInt(id.slice(-2), 16) ^ 0xff;
  return `${id.slice(0, -2)}${last.toString(16).padStart(2, "0")}`;
}

describe("derived blocks: getPayload in the build-start request (local payload id)", () => {
  let cfg: RollupConfig;
  const els: SimulatedExecutionClient[] = [];
  const proxies: CountingProxy[] = [];
  let userTxs: Hex[][];

  beforeAll(async () => {
    userTxs = [];
    for (let n = 1; n <= 6; n++)
      userTxs.push([await signTransfer({ nonce: 2 * (n - 1) }), await signTransfer({ nonce: 2 * n - 1 })]);
  });
  afterAll(async () => {
    for (const p of proxies) await p.stop();
    for (const el of els) await el.stop();
  });

  async function rig(mode: Mode, predictPayloadIds = true) {
    const el = await startEl({ variant: "a" });
    els.push(el);
    const proxy = new CountingProxy(el.authUrl, mode);
    proxies.push(proxy);
    await proxy.start();
    cfg = {
      genesis: { l1: { hash: L1.hash, number: 100 }, l2: { hash: el.genesisHash, number: 0 }, l2_time: GENESIS_TIME },
      block_time: 2,
      ...EVERY_FORK_AT_GENESIS,
    } as unknown as RollupConfig;
    const infos: [unknown, string | undefined][] = [];
    const logger = { ...silentLogger, info: (o: unknown, msg?: string) => void infos.push([o, msg]) };
    const registry = new Registry();
    const counter = payloadIdPredictionCounter(registry, 901n);
    const engine = EngineRpcClient.create(
      { url: proxy.url, jwtSecret: SECRET, kind: "variant_a", rollupConfig: cfg, predictPayloadIds },
      {
        clock: systemClock,
        logger: logger as typeof silentLogger,
        onPayloadIdPrediction: (outcome) => counter.inc({ outcome }),
      },
    );
    const ctl = new EngineController({
      engine,
      cfg,
      logger: silentLogger,
      metrics: createChainMetrics(registry, 901n),
      refFromPayload: () => {
        throw new Error("not read: every block here is built");
      },
    });
    const predictions = async (outcome: string): Promise<number> => {
      const m = await registry.getSingleMetric("supernode_node_payload_id_predictions_total")!.get();
      return m.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    };
    return { el, proxy, ctl, engine, infos, predictions };
  }

  /** Derives blocks 1..n (none at the EL: each is built), then flushes the heads. */
  async function derive(ctl: EngineController, n: number): Promise<L2BlockRef[]> {
    const refs: L2BlockRef[] = [];
    for (let i = 1; i <= n; i++) {
      const parent = ctl.heads.pendingSafe;
      const r = await ctl.applyDerived({
        attributes: attributesOf(i, userTxs[i - 1]!),
        parent,
        l1origin: { hash: L1.hash, number: L1.number },
        sequenceNumber: i,
        concluding: true,
        derivedFrom: L1,
      });
      expect(r).toBe("built");
      refs.push(ctl.heads.unsafe);
    }
    await ctl.flushForkchoice();
    return refs;
  }

  it("hit: one request per derived block, the payload from the batch", async () => {
    const { el, proxy, ctl, predictions } = await rig("plain");
    const refs = await derive(ctl, 6);
    expect(proxy.requests).toEqual([
      ["engine_forkchoiceUpdatedV3", "engine_getPayloadV4"],
      ...Array.from({ length: 5 }, () => ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3", "engine_getPayloadV4"]),
      ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"],
    ]);
    expect(await predictions("hit")).toBe(6);
    expect(await predictions("miss")).toBe(0);
    expect(el.head.hash).toBe(refs[5]!.hash);
    expect(el.head.header.number).toBe(6);
    expect(ctl.publishedHeads.safe.hash).toBe(refs[5]!.hash);
  });

  for (const mode of ["other-ids", "getPayload-first"] as const) {
    it(`miss (${mode}): getPayload on its own with the returned id, the same blocks, prediction off`, async () => {
      const plain = await rig("plain");
      const want = await derive(plain.ctl, 3);
      const { el, proxy, ctl, infos, predictions } = await rig(mode);
      const refs = await derive(ctl, 3);
      expect(refs.map((r) => r.hash)).toEqual(want.map((r) => r.hash));
      expect(el.head.hash).toBe(want[2]!.hash);
      expect(proxy.requests).toEqual([
        ["engine_forkchoiceUpdatedV3", "engine_getPayloadV4"], // predicted, missed
        ["engine_getPayloadV4"], // the fallback, with the id the EL returned
        ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"], // no more prediction
        ["engine_getPayloadV4"],
        ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"],
        ["engine_getPayloadV4"],
        ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"],
      ]);
      expect(await predictions("miss")).toBe(1);
      expect(await predictions("hit")).toBe(0);
      const stops = infos.filter(([, msg]) => msg === "execution client: payload ids are no longer predicted");
      expect(stops).toHaveLength(1);
      const reason = (stops[0]?.[0] as { reason?: string } | undefined)?.reason;
      expect(reason).toMatch(mode === "other-ids" ? /returned payload id/ : /Unknown payload/);
    });
  }

  it("an EL that ran the forkchoice update first (SYNCING): batching stops, the update is sent again alone", async () => {
    const plain = await rig("plain");
    const want = await derive(plain.ctl, 3);
    const { el, proxy, ctl, engine } = await rig("forkchoice-first");
    const refs = await derive(ctl, 3);
    expect(refs.map((r) => r.hash)).toEqual(want.map((r) => r.hash));
    expect(el.head.hash).toBe(want[2]!.hash);
    expect(engine.batchesEngineCalls).toBe(false);
    expect(proxy.requests.slice(0, 4)).toEqual([
      ["engine_forkchoiceUpdatedV3", "engine_getPayloadV4"], // nothing to insert first: in order either way
      ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3", "engine_getPayloadV4"], // the update answered SYNCING
      ["engine_forkchoiceUpdatedV3"], // again, alone
      ["engine_getPayloadV4"], // with the id it returned
    ]);
    expect(proxy.requests.slice(3).every((r) => r.length === 1)).toBe(true);
  });

  it("an EL that refuses batches: every call on its own from then on, the same blocks", async () => {
    const plain = await rig("plain");
    const want = await derive(plain.ctl, 2);
    const { el, proxy, ctl, engine } = await rig("refused");
    const refs = await derive(ctl, 2);
    expect(refs.map((r) => r.hash)).toEqual(want.map((r) => r.hash));
    expect(el.head.hash).toBe(want[1]!.hash);
    expect(engine.batchesEngineCalls).toBe(false);
    expect(proxy.requests).toEqual([
      ["engine_forkchoiceUpdatedV3", "engine_getPayloadV4"], // refused
      ["engine_forkchoiceUpdatedV3"],
      ["engine_getPayloadV4"],
      ["engine_newPayloadV4"],
      ["engine_forkchoiceUpdatedV3"],
      ["engine_getPayloadV4"],
      ["engine_newPayloadV4"],
      ["engine_forkchoiceUpdatedV3"],
    ]);
  });

  it("a batch that got no answer (transport) is the build start's temporary failure; batching goes on", async () => {
    const { el, proxy, ctl, engine } = await rig("drop-first-batch");
    const parent = ctl.heads.pendingSafe;
    await expect(
      ctl.applyDerived({
        attributes: attributesOf(1, userTxs[0]!),
        parent,
        l1origin: { hash: L1.hash, number: L1.number },
        sequenceNumber: 1,
        concluding: true,
        derivedFrom: L1,
      }),
    ).rejects.toMatchObject({ severity: "temporary" });
    expect(engine.batchesEngineCalls).toBe(true);
    expect(engine.predictsPayloadIds).toBe(true);
    const refs = await derive(ctl, 2);
    expect(el.head.hash).toBe(refs[1]!.hash);
    expect(proxy.requests.slice(1)).toEqual([
      ["engine_forkchoiceUpdatedV3", "engine_getPayloadV4"],
      ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3", "engine_getPayloadV4"],
      ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"],
    ]);
  });

  it("predictPayloadIds false: getPayload on its own, nothing counted", async () => {
    const { el, proxy, ctl, predictions } = await rig("plain", false);
    const refs = await derive(ctl, 2);
    expect(proxy.requests).toEqual([
      ["engine_forkchoiceUpdatedV3"],
      ["engine_getPayloadV4"],
      ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"],
      ["engine_getPayloadV4"],
      ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"],
    ]);
    expect(el.head.hash).toBe(refs[1]!.hash);
    expect((await predictions("hit")) + (await predictions("miss"))).toBe(0);
  });

  it("sequencer: its blocks never batch getPayload", async () => {
    const { proxy, ctl, predictions } = await rig("plain");
    const parent = ctl.heads.unsafe;
    for (const noTxPool of [false, true]) {
      const p = ctl.heads.unsafe;
      const n = p.number + 1;
      const built = await ctl.buildAndInsert(attributesOf(n, userTxs[n - 1]!, noTxPool), p, {
        l1origin: { hash: L1.hash, number: L1.number },
        sequenceNumber: n,
      });
      expect(built?.ref.number).toBe(n);
    }
    expect(ctl.heads.unsafe.parentHash).not.toBe(parent.hash);
    expect(proxy.requests).toEqual([
      ["engine_forkchoiceUpdatedV3"],
      ["engine_getPayloadV4"],
      ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"],
      ["engine_forkchoiceUpdatedV3"],
      ["engine_getPayloadV4"],
      ["engine_newPayloadV4", "engine_forkchoiceUpdatedV3"],
    ]);
    expect(await predictions("hit")).toBe(0);
  });
});
