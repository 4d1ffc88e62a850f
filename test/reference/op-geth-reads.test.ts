/**
 * The supernode's L2 reads against a real op-geth (the Go reference variant B client), fresh from a devnet genesis:
 * before any forkchoice update op-geth answers `safe` / `finalized` with an error, not null.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.js";
import { systemClock } from "../../src/core/time/clock.js";
import type { Hash } from "../../src/core/types/primitives.js";
import { devnetRollupConfig, writeJwtSecret } from "supernode-devnet/config";
import { l2GenesisJson } from "supernode-devnet/l2-genesis";
import { EngineRpcClient } from "../../src/io/engine/engine-rpc-client.js";
import { jsonRpc, type OpGeth, referenceBinary, referenceSkipReason, startOpGeth } from "../support/reference.js";

const skip = referenceSkipReason("op-geth reads", ["geth"]);
let geth: OpGeth | undefined;
let dir: string | undefined;
afterAll(async () => {
  await geth?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skip !== undefined)("L2 reads on a fresh op-geth", () => {
  it("safe and finalized are 'none yet' (op-geth: -32000 '… block not found'), latest is the genesis", async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-ref-reads-"));
    const draft = devnetRollupConfig({
      l2ChainId: 901,
      l1ChainId: 900,
      l1Genesis: { hash: `0x${"11".repeat(32)}`, number: 0 },
      l2Genesis: { hash: `0x${"00".repeat(32)}`, timestamp: 1_800_000_000 },
      batcher: "0x00000000000000000000000000000000000000ba",
    });
    const genesisPath = join(dir, "genesis.json");
    writeFileSync(genesisPath, JSON.stringify(l2GenesisJson(draft, {})));
    const secret = new Uint8Array(32).fill(7);
    const jwtPath = await writeJwtSecret(dir, secret);
    geth = await startOpGeth({
      geth: referenceBinary("geth") as string,
      datadir: join(dir, "geth"),
      genesisPath,
      jwtPath,
      logDir: dir,
      name: "geth",
    });
    const g = await jsonRpc<{ hash: Hash }>(geth.httpUrl, "eth_getBlockByNumber", ["0x0", false]);
    await expect(jsonRpc(geth.httpUrl, "eth_getBlockByNumber", ["finalized", false])).rejects.toThrow(
      /finalized block not found/,
    );
    const cfg = { ...draft, genesis: { ...draft.genesis, l2: { hash: g.hash, number: 0 } } };
    const engine = EngineRpcClient.create(
      { url: geth.authUrl, jwtSecret: secret, kind: "variant_b", rollupConfig: cfg },
      { clock: systemClock, logger: silentLogger },
    );
    expect(await engine.l2BlockRefByLabel("finalized")).toBeUndefined();
    expect(await engine.l2BlockRefByLabel("safe")).toBeUndefined();
    expect((await engine.l2BlockRefByLabel("latest"))?.hash).toBe(g.hash);
  }, 120_000);
});
