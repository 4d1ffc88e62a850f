import { type Address, type Hash, type Hex, hexToBytes, silentLogger, systemClock, toQuantity } from "supernode/core";
import { encodeDepositTxHex, keccakHex } from "supernode/protocol";
import { DEFAULT_EIP1559, buildBlock, executePayload, makeGenesis } from "supernode-devnet/el/block-builder";
import { type ElForks, SimulatedExecutionClient, mintEngineJwt } from "supernode-devnet/el";
import { decodeDeposit } from "supernode-devnet/el/tx-decode";
import type { SimBlock } from "supernode-devnet/el/types";
import { postText } from "supernode/json-rpc";
import { type Bench, note } from "./harness.js";
import { evmComparison } from "./sim-el/evm-comparison.js";
import { benchBlockAttributes } from "./sim-el/user-blocks.js";

/**
 * The simulated execution client under the load a derivation run puts on it: per block one fcU with attributes
 * (an L1-info deposit plus one user deposit), getPayload, newPayload and a head fcU, over the JWT-authenticated
 * Engine API on loopback (sequential, like one virtual node). Figure `engine_blocks_per_s`. A second instance
 * imports the same payloads (newPayload + fcU only): `import_blocks_per_s`. Without HTTP, the block builder and
 * the re-execution of `newPayload` alone: `inproc_build_blocks_per_s`, `inproc_import_blocks_per_s`. Blocks of 12
 * signed user transactions in process (bench/sim-el/user-blocks.ts): `inproc_user_block_decode_us`,
 * `inproc_user_block_build_us`, and of 12 contract calls run in the EVM (bench/sim-el/contract-blocks.ts):
 * `inproc_contract_block_build_us`, with the ratios to the code before the EVM (bench/sim-el/evm-comparison.ts;
 * measured in the same run with `SIM_EL_PRE_EVM_DIR`) (SIM_EL_USER_BLOCKS, default 300; 0 skips them).
 */
const BLOCKS = 500;
const SECRET = new Uint8Array(32).fill(3);
const FORKS: ElForks = {
  regolith: 0,
  canyon: 0,
  delta: 0,
  ecotone: 0,
  fjord: 0,
  granite: 0,
  holocene: 0,
  isthmus: 0,
  jovian: 0,
};

let id = 0;
async function engine(url: string, method: string, params: unknown[]): Promise<Record<string, unknown>> {
  // A keep-alive node:http client (src/io/json-rpc/http-post.ts): the global fetch costs more CPU per call than
  // the simulator's handling of it, which would hide the EL's own cost.
  const res = await postText(url, JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }), {
    "content-type": "application/json",
    authorization: `Bearer ${mintEngineJwt(SECRET, Math.floor(Date.now() / 1000))}`,
  });
  const body = JSON.parse(res.text) as { result?: Record<string, unknown>; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result!;
}

function deposit(from: Address, to: Address, data: Hex, tag: string, mint: bigint): Hex {
  return encodeDepositTxHex({
    sourceHash: keccakHex(new TextEncoder().encode(tag)),
    from,
    to,
    mint,
    value: 0n,
    gas: 1_000_000n,
    isSystemTx: false,
    data,
  });
}

const start = (variant: "a" | "b") =>
  SimulatedExecutionClient.start(
    {
      variant,
      chainId: 901n,
      genesis: { timestamp: 1_700_000_000, gasLimit: 30_000_000n, forks: FORKS },
      http: { port: 0 },
      authrpc: { port: 0, jwtSecret: SECRET },
    },
    { logger: silentLogger, clock: systemClock },
  );

/** CPU seconds (user + system) of this process since `start`: robust against other load on the machine. */
function cpuSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1e6;
}

async function inProcess(report: Parameters<Bench["run"]>[0]): Promise<void> {
  const p = { chainId: 901n, forks: FORKS, eip1559: DEFAULT_EIP1559 };
  const genesis = makeGenesis(p, { timestamp: 1_700_000_000, gasLimit: 30_000_000n });
  const blocks: SimBlock[] = [];
  let parent = genesis;
  const info = `0x3db6be2b${"00".repeat(174)}` as Hex;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let n = 1; n <= BLOCKS * 2; n++) {
    const txs = [
      decodeDeposit(
        hexToBytes(
          deposit(
            "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001",
            "0x4200000000000000000000000000000000000015",
            info,
            `i${n}`,
            0n,
          ),
        ),
      ),
      decodeDeposit(
        hexToBytes(
          deposit(
            "0x00000000000000000000000000000000000000d0",
            "0x00000000000000000000000000000000000000b0",
            "0x",
            `u${n}`,
            1n,
          ),
        ),
      ),
    ];
    parent = await buildBlock(p, parent, benchBlockAttributes(1_700_000_000 + 2 * n, txs), []);
    blocks.push(parent);
  }
  const buildS = (performance.now() - t0) / 1000;
  const buildCpuS = cpuSince(c0);
  report({ figure: "inproc_build_blocks_per_s", value: Math.round((BLOCKS * 2) / buildS), unit: "blocks/s" });
  report({ figure: "inproc_build_blocks_per_cpu_s", value: Math.round((BLOCKS * 2) / buildCpuS), unit: "blocks/s" });
  const t1 = performance.now();
  const c1 = process.cpuUsage();
  let prev = genesis;
  for (const b of blocks) {
    const h = b.header;
    const r = await executePayload(p, prev, {
      timestamp: h.timestamp,
      prevRandao: h.mixHash,
      feeRecipient: h.miner,
      gasLimit: h.gasLimit,
      extraData: h.extraData,
      baseFeePerGas: h.baseFeePerGas!,
      parentBeaconBlockRoot: h.parentBeaconBlockRoot!,
      transactions: b.txs,
    });
    if (typeof r === "string" || r.hash !== b.hash) throw new Error("re-execution mismatch");
    prev = r;
  }
  report({
    figure: "inproc_import_blocks_per_s",
    value: Math.round((BLOCKS * 2) / ((performance.now() - t1) / 1000)),
    unit: "blocks/s",
  });
  report({
    figure: "inproc_import_blocks_per_cpu_s",
    value: Math.round((BLOCKS * 2) / cpuSince(c1)),
    unit: "blocks/s",
  });
}

const bench: Bench = {
  name: "sim-el",
  async run(report) {
    await inProcess(report);
    const userBlocks = Number(process.env.SIM_EL_USER_BLOCKS ?? 300);
    if (userBlocks > 0) await evmComparison(report, FORKS, userBlocks);
    const a = await start("a");
    const b = await start("b");
    try {
      const payloads: Record<string, unknown>[] = [];
      const pbr = `0x${"cd".repeat(32)}`;
      let head: Hash = a.genesisHash;
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      for (let n = 1; n <= BLOCKS; n++) {
        const ts = 1_700_000_000 + 2 * n;
        const info = `0x3db6be2b${"00".repeat(174)}` as Hex;
        const attrs = {
          timestamp: toQuantity(ts),
          prevRandao: `0x${"ab".repeat(32)}`,
          suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
          withdrawals: [],
          parentBeaconBlockRoot: pbr,
          transactions: [
            deposit(
              "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001",
              "0x4200000000000000000000000000000000000015",
              info,
              `i${n}`,
              0n,
            ),
            deposit(
              "0x00000000000000000000000000000000000000d0",
              "0x00000000000000000000000000000000000000b0",
              "0x",
              `u${n}`,
              1n,
            ),
          ],
          noTxPool: true,
          gasLimit: toQuantity(30_000_000n),
          eip1559Params: "0x0000000000000000",
          minBaseFee: 0,
        };
        const fcs = { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: a.genesisHash };
        const r = await engine(a.authUrl, "engine_forkchoiceUpdatedV3", [fcs, attrs]);
        const env = await engine(a.authUrl, "engine_getPayloadV4", [r.payloadId]);
        const payload = env.executionPayload as Record<string, unknown>;
        await engine(a.authUrl, "engine_newPayloadV4", [payload, [], pbr, []]);
        head = payload.blockHash as Hash;
        await engine(a.authUrl, "engine_forkchoiceUpdatedV3", [{ ...fcs, headBlockHash: head }, null]);
        payloads.push(payload);
      }
      const buildS = (performance.now() - t0) / 1000;
      report({ figure: "engine_blocks_per_s", value: Math.round(BLOCKS / buildS), unit: "blocks/s" });
      // client and server share this process: CPU per block covers both ends of the four calls
      report({ figure: "engine_blocks_per_cpu_s", value: Math.round(BLOCKS / cpuSince(c0)), unit: "blocks/s" });
      note(`built ${BLOCKS} blocks in ${buildS.toFixed(2)} s`);
      const t1 = performance.now();
      for (const p of payloads) {
        const st = await engine(b.authUrl, "engine_newPayloadV4", [p, [], pbr, []]);
        if (st.status !== "VALID") throw new Error(`import: ${JSON.stringify(st)}`);
        await engine(b.authUrl, "engine_forkchoiceUpdatedV3", [
          { headBlockHash: p.blockHash, safeBlockHash: p.blockHash, finalizedBlockHash: b.genesisHash },
          null,
        ]);
      }
      const importS = (performance.now() - t1) / 1000;
      report({ figure: "import_blocks_per_s", value: Math.round(BLOCKS / importS), unit: "blocks/s" });
    } finally {
      await a.stop();
      await b.stop();
    }
  },
};
export default bench;
