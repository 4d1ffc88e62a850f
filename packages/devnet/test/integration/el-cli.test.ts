import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { parseForks, registerDevnetElCommand } from "../../src/cli/el.js";
import { silentLogger } from "supernode/core";
import { type SimulatedExecutionClient, mintEngineJwt, parseJwtSecret } from "../../src/el/index.js";
import { call, rpc } from "../support/el-support.js";

const dir = mkdtempSync(join(tmpdir(), "sim-el-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runEl(args: string[]) {
  const ac = new AbortController();
  const lines: string[] = [];
  let started!: (el: SimulatedExecutionClient) => void;
  const ready = new Promise<SimulatedExecutionClient>((r) => {
    started = r;
  });
  const devnet = new Command("devnet").exitOverride();
  registerDevnetElCommand(devnet, {
    signal: ac.signal,
    logger: silentLogger,
    stdout: { write: (s: string) => lines.push(s) },
    onStarted: started,
  });
  const done = devnet.parseAsync(["el", ...args], { from: "user" });
  const el = await Promise.race([ready, done.then(() => Promise.reject(new Error("exited early")))]);
  const stop = async () => {
    ac.abort();
    await done;
  };
  return { el, lines, stop };
}

describe("supernode-devnet el", () => {
  it("starts a standalone client with the startup options and stops on abort", async () => {
    const jwt = join(dir, "sub", "jwt.hex");
    const { el, lines, stop } = await runEl([
      "--variant",
      "a",
      "--chain-id",
      "902",
      "--http.port",
      "0",
      "--http.api",
      "eth,net,web3,txpool",
      "--ws",
      "--ws.port",
      "0",
      "--authrpc.port",
      "0",
      "--authrpc.jwtsecret",
      jwt,
      "--genesis.time",
      "1700000000",
      "--forks",
      "regolith=0,canyon=0,ecotone=0",
      "--alloc",
      "0x00000000000000000000000000000000000000aa=1000",
    ]);
    try {
      const info = JSON.parse(lines[0]!);
      expect(info).toMatchObject({ variant: "a", chainId: "902", http: el.httpUrl, authrpc: el.authUrl, ws: el.wsUrl });
      expect(info.genesis).toMatchObject({ number: 0, timestamp: 1700000000 });
      expect(await call(el.httpUrl, "eth_chainId")).toBe("0x386");
      expect(await call(el.httpUrl, "txpool_status")).toEqual({ pending: "0x0", queued: "0x0" });
      expect(await call(el.httpUrl, "eth_getBalance", ["0x00000000000000000000000000000000000000aa", "latest"])).toBe(
        "0x3e8",
      );
      // the secret file was created (0600) and authenticates Engine API calls
      expect(statSync(jwt).mode & 0o777).toBe(0o600);
      const secret = parseJwtSecret(readFileSync(jwt, "utf8"));
      const ok = await rpc(el.authUrl, "eth_chainId", [], mintEngineJwt(secret, Math.floor(Date.now() / 1000)));
      expect(ok.result).toBe("0x386");
      const blk = await call<Record<string, unknown>>(el.httpUrl, "eth_getBlockByNumber", ["0x0", false]);
      expect(blk).toHaveProperty("parentBeaconBlockRoot");
      expect(blk).not.toHaveProperty("requestsHash"); // isthmus not scheduled
    } finally {
      await stop();
    }
    await expect(fetch(el.httpUrl, { method: "POST", body: "{}" })).rejects.toThrow();
  });

  it("reuses an existing secret file and rejects bad options", async () => {
    const jwt = join(dir, "given.hex");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(jwt, `${"ab".repeat(32)}\n`);
    const { el, stop } = await runEl([
      "--chain-id",
      "5",
      "--http.port",
      "0",
      "--authrpc.port",
      "0",
      "--authrpc.jwtsecret",
      jwt,
    ]);
    try {
      expect(el.variant).toBe("b");
      const secret = new Uint8Array(32).fill(0xab);
      expect(
        (await rpc(el.authUrl, "eth_chainId", [], mintEngineJwt(secret, Math.floor(Date.now() / 1000)))).result,
      ).toBe("0x5");
      expect(await call(el.httpUrl, "eth_syncing")).toBe(false);
    } finally {
      await stop();
    }
    expect(() => parseForks("canyon=0,bogus=1")).toThrow(/bad fork entry/);
    expect(parseForks("canyon=0, ecotone=10")).toEqual({ canyon: 0, ecotone: 10 });
    const devnet = new Command("devnet").exitOverride();
    devnet.configureOutput({ writeErr: () => {}, writeOut: () => {} });
    registerDevnetElCommand(devnet, { logger: silentLogger });
    await expect(devnet.parseAsync(["el", "--variant", "c", "--chain-id", "1"], { from: "user" })).rejects.toThrow();
    await expect(
      devnet.parseAsync(["el", "--chain-id", "1", "--http.port", "0", "--authrpc.port", "0"], { from: "user" }),
    ).rejects.toThrow(/jwtsecret/);
  });
});
