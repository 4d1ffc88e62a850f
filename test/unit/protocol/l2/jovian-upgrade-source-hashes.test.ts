import { describe, expect, it } from "vitest";
import { jovianUpgradeDeposits } from "../../../../src/protocol/l2/upgrade-txs.js";

describe("Jovian upgrade deposits", () => {
  it("carry the source hashes op-node derives (read off the Jovian activation block op-node v1.19.6 built on op-geth)", () => {
    // The derivation oracle (test/reference/) found these: the intents are op-node's "Jovian: L1 Block Deployment",
    // "… L1 Block Proxy Update", "… Gas Price Oracle Deployment", "… Gas Price Oracle Proxy Update" and
    // "Jovian: Gas Price Oracle Set Jovian" (ours read "L1Block" / "GasPriceOracle" for the first four).
    expect(jovianUpgradeDeposits().map((d) => d.sourceHash)).toEqual([
      "0xbb1a656f65401240fac3db12e7a79ebb954b11e62f7626eb11691539b798d3bf",
      "0xf3275f829340521028f9ad5bce4ecb1c64a45d448794effa2a77674627338e76",
      "0x239b7021a6c2cf3a918481242bbb5a9499057f24501539467536c691bb133962",
      "0xa70c60aa53b8c1c0d52b39b1e901e7d7c09f7819595cb24048a6bb1983b401ff",
      "0xe836db6a959371756f8941be3e962d000f7e12a32e49e2c9ca42ba177a92716c",
    ]);
  });
});
