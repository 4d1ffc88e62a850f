import { describe, expect, it } from "vitest";
import { devnetRollupConfig } from "../../src/config.js";
import { l2GenesisJson } from "../../src/l2-genesis.js";

const base = {
  l2ChainId: 901,
  l1ChainId: 900,
  l1Genesis: { hash: `0x${"11".repeat(32)}` as const, number: 3 },
  l2Genesis: { hash: `0x${"22".repeat(32)}` as const, timestamp: 1_800_000_000 },
  batcher: "0x00000000000000000000000000000000000000ba" as const,
};

describe("the devnet's L2 genesis.json (go-ethereum format)", () => {
  it("every fork through Jovian at genesis: Jovian extraData, blob gas fields, the EIP-2935 contract", () => {
    const g = l2GenesisJson(devnetRollupConfig(base), { "0xAbC0000000000000000000000000000000000001": 10n ** 22n });
    const config = g.config as Record<string, unknown>;
    expect(config.chainId).toBe(901);
    expect(config.jovianTime).toBe(0);
    expect(config.pragueTime).toBe(0);
    expect(config.karstTime).toBeUndefined();
    expect(config.optimism).toEqual({ eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 });
    // version 1, denominator 250, elasticity 6, minimum base fee 0
    expect(g.extraData).toBe("0x01000000fa000000060000000000000000");
    expect(g.timestamp).toBe("0x6b49d200");
    expect(g.gasLimit).toBe("0x1c9c380");
    expect(g.blobGasUsed).toBe("0x0");
    const alloc = g.alloc as Record<string, { balance: string; code?: string }>;
    expect(alloc["0xabc0000000000000000000000000000000000001"]?.balance).toBe("0x21e19e0c9bab2400000");
    expect(alloc["0x0000f90827f1c53a10cb7a02335b175320002935"]?.code).toMatch(/^0x3373f{39}e14/);
  });

  it("Holocene at genesis without Jovian: version-0 extraData; Ecotone later: no blob gas fields", () => {
    const t = base.l2Genesis.timestamp;
    const cfg = devnetRollupConfig({
      ...base,
      forks: { regolith: 0, canyon: 0, delta: 0, ecotone: 0, fjord: 0, granite: 0, holocene: 0, isthmus: t + 10 },
    });
    const g = l2GenesisJson(cfg, {});
    expect(g.extraData).toBe("0x00000000fa00000006");
    expect((g.config as Record<string, unknown>).jovianTime).toBeUndefined();
    expect(g.alloc).toEqual({
      "0x4200000000000000000000000000000000000016": {
        nonce: "0x1",
        balance: "0x0",
        storage: { [`0x${"00".repeat(32)}`]: `0x${"00".repeat(31)}01` },
      },
    });
    const late = l2GenesisJson(devnetRollupConfig({ ...base, forks: { regolith: 0, canyon: 0, ecotone: t + 4 } }), {});
    expect(late.extraData).toBe("0x");
    expect(late.blobGasUsed).toBeUndefined();
    expect((late.config as Record<string, unknown>).cancunTime).toBe(t + 4);
  });
});
