import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildChainRuntimesWith } from "../../../src/app/chain-factory.js";
import { loadConfig } from "../../../src/config/load.js";
import type { SupernodeConfig } from "../../../src/config/types.js";
import type { Logger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { L1StateSource } from "../../../src/app/p2p-wiring.js";
import { createSupernodeMetrics } from "../../../src/observability/metrics-registry.js";
import { baseArgs, type Fixture, makeFixture } from "../config/helpers.js";

/**
 * Starting a chain identifies its execution client (`web3_clientVersion`, `rpc_modules`) so the engine-kind
 * mismatch and the variant B end-of-support warnings are logged. The fake EL claims to be reth (variant A) while
 * the chain is configured with the default engine kind (variant B); it answers nothing else.
 */
interface Line {
  readonly level: string;
  readonly msg: string;
}

function capture(lines: Line[]): Logger {
  const at =
    (level: string) =>
    (a: object | string, b?: string): void => {
      lines.push({ level, msg: typeof a === "string" ? a : (b ?? "") });
    };
  const l: Logger = {
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => l,
  };
  return l;
}

let f: Fixture;
let server: Server;
const methods: string[] = [];

beforeAll(async () => {
  f = makeFixture();
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const m = JSON.parse(body) as { id: number; method: string };
      methods.push(m.method);
      const reply =
        m.method === "web3_clientVersion"
          ? { jsonrpc: "2.0", id: m.id, result: "reth/v1.9.0-test" }
          : { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "method not found" } };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  f.cleanup();
});

describe("chain start identifies the execution client", () => {
  it("logs the engine-kind mismatch and variant B end of support", async () => {
    const port = (server.address() as AddressInfo).port;
    const args = baseArgs(f, [901]);
    args[args.indexOf("--vn.901.l2") + 1] = `http://127.0.0.1:${port}`;
    args.push("--data-dir", f.dir, "--disable-p2p");
    const res = loadConfig(args, {});
    if (!res.ok) throw new Error(JSON.stringify(res.issues));
    const config: SupernodeConfig = res.config;
    expect(config.chainConfigs[0]?.engineKind).toBe("variant_b");

    const lines: Line[] = [];
    const after = Date.UTC(2026, 5, 1);
    const runtimes = await buildChainRuntimesWith({
      shared: { l1: {} as L1StateSource, blobs: undefined },
    })(config, {
      logger: capture(lines),
      clock: { nowMs: () => after, sleep: systemClock.sleep },
      metrics: createSupernodeMetrics({ version: "test", processMetrics: false }),
      version: "test",
    });
    const factory = runtimes.factories.get(901n);
    expect(factory).toBeDefined();
    // The fake EL cannot serve a node: starting may fail, which does not matter here. The identification runs
    // beside the chain's start (it does not hold the chain's RPC back): wait for its second warning.
    const svc = await factory?.(1).catch(() => undefined);
    const warned = () => lines.filter((l) => l.level === "warn").map((l) => l.msg);
    while (!warned().some((m) => m.includes("end of support"))) await new Promise((r) => setTimeout(r, 10));
    await svc?.stop();
    await runtimes.close();

    expect(methods.slice(0, 2).sort()).toEqual(["rpc_modules", "web3_clientVersion"]);
    const warns = warned();
    expect(warns).toContain("execution client looks like variant_a but l2.enginekind is variant_b");
    expect(warns).toContain("variant B execution client is past its end of support (2026-05-31); migrate to variant A");
  });
});
