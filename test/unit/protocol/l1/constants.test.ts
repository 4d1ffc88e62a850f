import { keccak256, toBytes } from "viem";
import { describe, expect, it } from "vitest";
import {
  activeBlobFork,
  blobParamsAt,
  L1_BLOB_FORKS,
  type L1ChainConfig,
  MAINNET_L1_CONFIG,
  parseL1ChainConfig,
} from "../../../../src/protocol/l1/blob-fee.js";
import { DEPOSIT_EVENT_TOPIC } from "../../../../src/protocol/l1/deposit-log.js";
import { CONFIG_UPDATE_TOPIC } from "../../../../src/protocol/l1/system-config.js";
import { L1_INFO_SELECTORS } from "../../../../src/protocol/l2/l1-info.js";
import { createAddress } from "../../../../src/protocol/l2/upgrade-txs.js";
import { DecodeError } from "../../../../src/core/errors/supernode-error.js";

const sel = (sig: string): string => keccak256(toBytes(sig)).slice(2, 10);

describe("op-node §8/§10 constants", () => {
  it("event topics and L1-info selectors are the keccak of their signatures", () => {
    expect(DEPOSIT_EVENT_TOPIC).toBe(keccak256(toBytes("TransactionDeposited(address,address,uint256,bytes)")));
    expect(CONFIG_UPDATE_TOPIC).toBe(keccak256(toBytes("ConfigUpdate(uint256,uint8,bytes)")));
    expect(L1_INFO_SELECTORS.bedrock).toBe(
      sel("setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)"),
    );
    expect(L1_INFO_SELECTORS.ecotone).toBe(sel("setL1BlockValuesEcotone()"));
    expect(L1_INFO_SELECTORS.isthmus).toBe(sel("setL1BlockValuesIsthmus()"));
    expect(L1_INFO_SELECTORS.jovian).toBe(sel("setL1BlockValuesJovian()"));
  });

  it("upgrade implementation addresses are CREATE addresses of the deployers", () => {
    expect(createAddress("0x4210000000000000000000000000000000000000")).toBe(
      "0x07dbe8500fc591d1852b76fee44d5a05e13097ff",
    );
    expect(createAddress("0x4210000000000000000000000000000000000001")).toBe(
      "0xb528d11cc114e026f138fe568744c6d45ce6da7a",
    );
    expect(createAddress("0x4210000000000000000000000000000000000002")).toBe(
      "0xa919894851548179a0750865e7974da599c0fac7",
    );
  });

  it("parses an L1 chain config (geth JSON) with a blob schedule", () => {
    const cfg = parseL1ChainConfig({
      config: {
        chainId: 11155111,
        cancunTime: 1706655072,
        pragueTime: 1741159776,
        osakaTime: "1760427360",
        bpo1Time: 1761017184,
        blobSchedule: { bpo1: { target: 10, max: 15, baseFeeUpdateFraction: 8346193 } },
      },
    });
    expect(cfg.chainId).toBe(11155111n);
    expect(cfg.osakaTime).toBe(1760427360);
    expect(blobParamsAt(cfg, 1761017184)?.baseFeeUpdateFraction).toBe(8346193);
    expect(blobParamsAt(cfg, 1741159776)?.baseFeeUpdateFraction).toBe(5007716);
    expect(blobParamsAt(cfg, 1)).toBeUndefined();
    expect(blobParamsAt(MAINNET_L1_CONFIG, 1767747671)?.baseFeeUpdateFraction).toBe(11684671);
    expect(() => parseL1ChainConfig({ cancunTime: 1 })).toThrow(DecodeError);
  });
});

describe("L1 blob forks", () => {
  it("names the newest blob fork active at each time, every fork's own time field read", () => {
    const times = Object.fromEntries(L1_BLOB_FORKS.map((f, i) => [`${f}Time`, 100 * (i + 1)]));
    const l1 = { chainId: 5n, ...times, blobSchedule: {} } as L1ChainConfig;
    expect(activeBlobFork(l1, 99)).toBeUndefined();
    L1_BLOB_FORKS.forEach((f, i) => {
      expect(activeBlobFork(l1, 100 * (i + 1))).toBe(f);
      expect(activeBlobFork(l1, 100 * (i + 1) + 99)).toBe(f);
    });
    // A fork without a time is never active, whatever comes after it.
    expect(activeBlobFork({ chainId: 5n, cancunTime: 0, osakaTime: 10, blobSchedule: {} }, 5)).toBe("cancun");
    expect(activeBlobFork({ chainId: 5n, cancunTime: 0, osakaTime: 10, blobSchedule: {} }, 10)).toBe("osaka");
  });
});
