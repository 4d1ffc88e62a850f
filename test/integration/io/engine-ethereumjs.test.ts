import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.js";
import { systemClock, type Clock } from "../../../src/core/time/clock.js";
import type { Hash, Hex } from "../../../src/core/types/primitives.js";
import { EngineRpcClient } from "../../../src/io/engine/engine-rpc-client.js";
import { readJwtSecret } from "../../../src/io/engine/jwt.js";
import { HttpRpcClient } from "../../../src/io/json-rpc/http-client.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import { DEV_KEY } from "../../support/blob-tx.js";
import { EJS_CHAIN_ID, type EthereumJsNode, startEthereumJs } from "../../support/ethereumjs.js";
import { attributesFromHex } from "../../../src/protocol/l2/attributes.js";

const ZERO: Hash = `0x${"00".repeat(32)}`;

function rollupConfig(genesisHash: Hash, genesisTime: number): RollupConfig {
  return {
    genesis: {
      l1: { hash: `0x${"11".repeat(32)}`, number: 7 },
      l2: { hash: genesisHash, number: 0 },
      l2_time: genesisTime,
      system_config: {
        batcherAddr: `0x${"00".repeat(20)}`,
        overhead: ZERO,
        scalar: ZERO,
        gasLimit: 30_000_000n,
        eip1559Params: "0x0000000000000000",
        operatorFeeParams: ZERO,
        minBaseFee: 0n,
        daFootprintGasScalar: 0,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 3600,
    channel_timeout: 300,
    l1_chain_id: 900n,
    l2_chain_id: BigInt(EJS_CHAIN_ID),
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    ecotone_time: 0,
    batch_inbox_address: `0x${"ff".repeat(20)}`,
    deposit_contract_address: `0x${"01".repeat(20)}`,
    l1_system_config_address: `0x${"02".repeat(20)}`,
    protocol_versions_address: `0x${"00".repeat(20)}`,
  };
}

const beforeEos: Clock = { nowMs: () => Date.UTC(2026, 0, 15), sleep: systemClock.sleep };

describe("EngineRpcClient against @ethereumjs/client (real Engine API with JWT)", () => {
  let ejs: EthereumJsNode;
  let engine: EngineRpcClient;
  let genesis: { hash: Hash; timestamp: number };

  beforeAll(async () => {
    ejs = await startEthereumJs();
    const plain = new HttpRpcClient({ url: ejs.rpcUrl });
    const g = (await plain.call("eth_getBlockByNumber", ["0x0", false])) as { hash: Hash; timestamp: Hex };
    genesis = { hash: g.hash, timestamp: Number(g.timestamp) };
    engine = EngineRpcClient.create(
      {
        url: ejs.engineUrl,
        jwtSecret: await readJwtSecret(ejs.jwtPath),
        kind: "variant_b",
        timeoutMs: 10_000,
        rollupConfig: rollupConfig(genesis.hash, genesis.timestamp),
        // ethereumjs is an L1 client: it rejects the OP attribute fields
        standardAttributesOnly: true,
      },
      { clock: systemClock, logger: silentLogger },
    );
  }, 60_000);

  afterAll(async () => {
    await ejs?.stop();
  });

  it("rejects a request signed with the wrong secret", async () => {
    const wrong = EngineRpcClient.create(
      { ...engine.opts, jwtSecret: new Uint8Array(32).fill(7) },
      { clock: systemClock, logger: silentLogger },
    );
    await expect(wrong.chainId()).rejects.toMatchObject({ code: "RPC_HTTP", severity: "critical" });
  });

  it("identifies the client and warns about variant B's end of support", async () => {
    expect(await engine.chainId()).toBe(BigInt(EJS_CHAIN_ID));
    const id = await engine.identify();
    // ethereumjs serves only eth and engine on its auth port: no web3_clientVersion, and rpc_modules → -32601,
    // which is how variant A answers; so it does not match l2.enginekind=variant_b
    expect(id.clientVersion).toBeUndefined();
    expect(id.detectedKind).toBe("variant_a");
    const past = Date.now() >= Date.UTC(2026, 4, 31);
    expect(id.warnings).toEqual([
      "execution client looks like variant_a but l2.enginekind is variant_b",
      past
        ? "variant B execution client is past its end of support (2026-05-31); migrate to variant A"
        : "variant B execution client reaches end of support on 2026-05-31; plan a migration to variant A",
    ]);
    // the injected clock decides (this one is before the date; its JWTs are stale, identify still never throws)
    const early = EngineRpcClient.create(engine.opts, { clock: beforeEos, logger: silentLogger });
    const earlyId = await early.identify();
    expect(earlyId.clientVersion).toBeUndefined();
    expect(earlyId.warnings[0]).toContain("reaches end of support on 2026-05-31");
  });

  it("reads the genesis block reference (origin from the rollup config)", async () => {
    const ref = await engine.l2BlockRefByLabel("latest");
    expect(ref).toMatchObject({ hash: genesis.hash, number: 0, l1origin: { number: 7 }, sequenceNumber: 0 });
    expect(await engine.l2BlockRefByNumber(99)).toBeUndefined();
  });

  it("runs forkchoiceUpdated → getPayload → newPayload → forkchoiceUpdated (V3) with a user transaction", async () => {
    const account = privateKeyToAccount(DEV_KEY);
    const raw = await account.signTransaction({
      chainId: EJS_CHAIN_ID,
      type: "eip1559",
      nonce: 0,
      to: "0x00000000000000000000000000000000000000bb",
      value: 12345n,
      gas: 21000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    const plain = new HttpRpcClient({ url: ejs.rpcUrl });
    const txHash = (await plain.call("eth_sendRawTransaction", [raw])) as Hash;

    const state = { headBlockHash: genesis.hash, safeBlockHash: genesis.hash, finalizedBlockHash: genesis.hash };
    const timestamp = genesis.timestamp + 2;
    expect(engine.forkchoiceMethod({ fields: { timestamp } } as never)).toBe("engine_forkchoiceUpdatedV3");
    const fcu = await engine.forkchoiceUpdated(
      state,
      attributesFromHex(
        {
          timestamp,
          prevRandao: `0x${"42".repeat(32)}`,
          suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
          withdrawals: [],
          parentBeaconBlockRoot: `0x${"33".repeat(32)}`,
          noTxPool: false,
          gasLimit: 30_000_000n,
        },
        [],
      ),
    );
    expect(fcu.payloadStatus.status).toBe("VALID");
    expect(fcu.payloadId).toMatch(/^0x[0-9a-f]{16}$/);
    await new Promise((r) => setTimeout(r, 500));
    const env = await engine.getPayload(fcu.payloadId as Hex, timestamp);
    expect(env.executionPayload.blockNumber).toBe(1);
    expect(env.executionPayload.parentHash).toBe(genesis.hash);
    expect(env.executionPayload.transactions).toEqual([raw]);
    // the V3 envelope from a non-OP EL lacks the OP parentBeaconBlockRoot extension: the caller supplies it
    const status = await engine.newPayload({ ...env, parentBeaconBlockRoot: `0x${"33".repeat(32)}` });
    expect(status.status).toBe("VALID");
    const head = env.executionPayload.blockHash;
    const fcu2 = await engine.forkchoiceUpdated({ ...state, headBlockHash: head });
    expect(fcu2.payloadStatus.status).toBe("VALID");
    expect(fcu2.payloadId).toBeNull();

    // reading it back over the authenticated eth namespace reproduces the payload, transactions as raw bytes
    const back = await engine.payloadByNumber(1);
    expect(back?.executionPayload.blockHash).toBe(head);
    expect(back?.executionPayload.transactions).toEqual([raw]);
    expect(back?.executionPayload.stateRoot).toBe(env.executionPayload.stateRoot);
    expect((await engine.payloadByHash(head))?.executionPayload.blockNumber).toBe(1);
    const plainTx = (await plain.call("eth_getTransactionByHash", [txHash])) as { blockHash: Hash };
    expect(plainTx.blockHash).toBe(head);
  });

  // ethereumjs (jayson) runs the calls of a batch concurrently, which JSON-RPC 2.0 allows: the forkchoice update can
  // be answered before the newPayload it needs has landed. That answer is SYNCING, never VALID for an unknown head,
  // and it is how the node's PayloadInserter notices such an EL (it then stops batching and sends the update again
  // on its own). op-geth and op-reth run a batch's calls one after the other.
  it("takes newPayload and the forkchoice update that makes it head in one batch; an early update is SYNCING", async () => {
    // (an L1 client's blocks have no L1-info deposit: read as payloads, not as L2 block refs)
    const b1 = (await engine.payloadByNumber(1))?.executionPayload;
    expect(b1).toBeDefined();
    const state = { headBlockHash: b1!.blockHash, safeBlockHash: genesis.hash, finalizedBlockHash: genesis.hash };
    const timestamp = b1!.timestamp + 2;
    const beaconRoot: Hash = `0x${"44".repeat(32)}`;
    const fcu = await engine.forkchoiceUpdated(
      state,
      attributesFromHex(
        {
          timestamp,
          prevRandao: `0x${"42".repeat(32)}`,
          suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
          withdrawals: [],
          parentBeaconBlockRoot: beaconRoot,
          noTxPool: true,
          gasLimit: 30_000_000n,
        },
        [],
      ),
    );
    expect(fcu.payloadId).toMatch(/^0x[0-9a-f]{16}$/);
    const env = await engine.getPayload(fcu.payloadId as Hex, timestamp);
    expect(env.executionPayload.parentHash).toBe(b1!.blockHash);
    const head = env.executionPayload.blockHash;
    const { inserted, forkchoice } = await engine.insertAsHead(
      { ...env, parentBeaconBlockRoot: beaconRoot },
      { ...state, headBlockHash: head },
    );
    expect(inserted).toMatchObject({ status: "VALID" });
    // An EL that runs the batch's update first answers SYNCING: the client sends it again on its own.
    expect(forkchoice).toMatchObject({ payloadStatus: { status: "VALID" } });
    const plain = new HttpRpcClient({ url: ejs.rpcUrl });
    expect(((await plain.call("eth_getBlockByNumber", ["latest", false])) as { hash: Hash }).hash).toBe(head);
  });
});
