/** Shared helpers for the simulated execution-client tests (Engine API calls, attributes, transactions). */
import { encodeFunctionData, parseAbi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  type Address,
  bytesToHex,
  type Clock,
  type Hash,
  type Hex,
  silentLogger,
  systemClock,
  toQuantity,
} from "supernode/core";
import { encodeDepositTxHex, keccakHex } from "supernode/protocol";
import { type ElForks, SimulatedExecutionClient, type Variant, mintEngineJwt } from "../../src/el/index.js";

export const SECRET = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
export const GENESIS_TIME = 1_700_000_000;
export const ALICE_KEY: Hex = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
export const alice = privateKeyToAccount(ALICE_KEY);
export const ALICE = alice.address.toLowerCase() as Address;
export const BOB: Address = "0x00000000000000000000000000000000000000b0";
/** Sender of the user deposits in these tests (an aliased L1 address). */
export const DEPOSIT_FROM: Address = "0x00000000000000000000000000000000000000d0";
export const FEE_RECIPIENT: Address = "0x4200000000000000000000000000000000000011";
export const DEPOSITOR: Address = "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001";
export const L1_BLOCK: Address = "0x4200000000000000000000000000000000000015";
export const MESSAGE_PASSER: Address = "0x4200000000000000000000000000000000000016";

/** Calldata of `initiateWithdrawal(target, 100000, data)`: a call to the message passer emits `MessagePassed`. */
export function withdrawalCalldata(target: Address, data: Hex = "0x"): Hex {
  return encodeFunctionData({
    abi: parseAbi(["function initiateWithdrawal(address _target, uint256 _gasLimit, bytes _data)"]),
    args: [target, 100_000n, data],
  });
}

export const ALL_FORKS: ElForks = {
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
export const ECOTONE_FORKS: ElForks = { regolith: 0, canyon: 0, delta: 0, ecotone: 0 };

export interface StartOpts {
  variant?: Variant;
  forks?: ElForks;
  api?: string[];
  ws?: boolean;
  sequencerHttp?: string;
  /** Keep the chain on disk (chain-store.ts). */
  datadir?: string;
  ancestorForkchoice?: "reorg" | "keep-head";
  /** `--http.corsdomain` */
  cors?: string[];
  /** Defaults to the system clock. */
  clock?: Clock;
}

export function startEl(o: StartOpts = {}): Promise<SimulatedExecutionClient> {
  return SimulatedExecutionClient.start(
    {
      variant: o.variant ?? "b",
      chainId: 901n,
      genesis: {
        timestamp: GENESIS_TIME,
        gasLimit: 30_000_000n,
        forks: o.forks ?? ALL_FORKS,
        alloc: { [ALICE]: 10n ** 20n },
      },
      http: {
        port: 0,
        ...(o.api === undefined ? {} : { api: o.api }),
        ...(o.cors === undefined ? {} : { corsDomain: o.cors }),
      },
      ...(o.ws ? { ws: { port: 0 } } : {}),
      authrpc: { port: 0, jwtSecret: SECRET },
      ...(o.sequencerHttp === undefined ? {} : { sequencerHttp: o.sequencerHttp }),
      ...(o.datadir === undefined ? {} : { datadir: o.datadir }),
      ...(o.ancestorForkchoice === undefined ? {} : { ancestorForkchoice: o.ancestorForkchoice }),
    },
    { logger: silentLogger, clock: o.clock ?? systemClock },
  );
}

export interface RpcReply {
  status: number;
  result?: unknown;
  error?: { code: number; message: string };
}

export async function rpc(url: string, method: string, params: unknown[] = [], token?: string): Promise<RpcReply> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  if (res.status !== 200) return { status: res.status };
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  return { status: 200, ...body };
}

/** Calls an Engine API method with a fresh token; throws on HTTP or JSON-RPC errors. */
export async function engine<T = Record<string, unknown>>(
  el: SimulatedExecutionClient,
  method: string,
  params: unknown[],
): Promise<T> {
  const r = await rpc(el.authUrl, method, params, mintEngineJwt(SECRET, Math.floor(Date.now() / 1000)));
  if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
  if (r.error !== undefined) throw Object.assign(new Error(r.error.message), { code: r.error.code });
  return r.result as T;
}

export async function call<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await rpc(url, method, params);
  if (r.error !== undefined) throw Object.assign(new Error(r.error.message), { code: r.error.code });
  return r.result as T;
}

function word(v: bigint, bytes: number): string {
  return v.toString(16).padStart(bytes * 2, "0");
}

/** Jovian-format L1-info calldata (178 bytes) with the given L1 values. */
export function l1InfoJovian(o: {
  number: number;
  time: number;
  seq: number;
  baseFee?: bigint;
  blobBaseFee?: bigint;
}): Hex {
  return `0x3db6be2b${word(1368n, 4)}${word(810949n, 4)}${word(BigInt(o.seq), 8)}${word(BigInt(o.time), 8)}${word(BigInt(o.number), 8)}${word(o.baseFee ?? 7n, 32)}${word(o.blobBaseFee ?? 1n, 32)}${"11".repeat(32)}${"00".repeat(12)}${"22".repeat(20)}${word(0n, 4)}${word(0n, 8)}${word(400n, 2)}`;
}

/** Ecotone-format L1-info calldata (164 bytes). */
export function l1InfoEcotone(o: { number: number; time: number; seq: number; baseFee?: bigint }): Hex {
  return `0x440a5e20${word(1368n, 4)}${word(810949n, 4)}${word(BigInt(o.seq), 8)}${word(BigInt(o.time), 8)}${word(BigInt(o.number), 8)}${word(o.baseFee ?? 7n, 32)}${word(1n, 32)}${"11".repeat(32)}${"00".repeat(12)}${"22".repeat(20)}`;
}

/** Bedrock-format L1-info calldata (260 bytes) with overhead 188 and scalar 684000. */
export function l1InfoBedrock(o: { number: number; time: number; seq: number; baseFee?: bigint }): Hex {
  return `0x015d8eb9${word(BigInt(o.number), 32)}${word(BigInt(o.time), 32)}${word(o.baseFee ?? 7n, 32)}${"11".repeat(32)}${word(BigInt(o.seq), 32)}${word(0x22n, 32)}${word(188n, 32)}${word(684000n, 32)}`;
}

export function l1InfoDeposit(data: Hex, seq: number): Hex {
  return encodeDepositTxHex({
    sourceHash: keccakHex(new TextEncoder().encode(`l1info-${seq}-${data.slice(0, 40)}`)),
    from: DEPOSITOR,
    to: L1_BLOCK,
    mint: 0n,
    value: 0n,
    gas: 1_000_000n,
    isSystemTx: false,
    data,
  });
}

export function userDeposit(to: Address, mint: bigint, value: bigint, tag = "d"): Hex {
  return encodeDepositTxHex({
    sourceHash: keccakHex(new TextEncoder().encode(tag)),
    from: DEPOSIT_FROM,
    to,
    mint,
    value,
    gas: 100_000n,
    isSystemTx: false,
    data: "0x",
  });
}

/** Payload attributes JSON (as a rollup node sends it) for an all-forks (Jovian) chain. */
export function jovianAttrs(
  ts: number,
  txs: Hex[],
  o: { noTxPool?: boolean; randao?: Hash } = {},
): Record<string, unknown> {
  return {
    timestamp: toQuantity(ts),
    prevRandao: o.randao ?? `0x${"ab".repeat(32)}`,
    suggestedFeeRecipient: FEE_RECIPIENT,
    withdrawals: [],
    parentBeaconBlockRoot: `0x${"cd".repeat(32)}`,
    transactions: txs,
    ...(o.noTxPool === false ? {} : { noTxPool: true }),
    gasLimit: toQuantity(30_000_000n),
    eip1559Params: "0x0000000000000000",
    minBaseFee: 0,
  };
}

export function signTransfer(o: {
  nonce: number;
  to?: Address;
  value?: bigint;
  data?: Hex;
  gas?: bigint;
  chainId?: number;
}): Promise<Hex> {
  return alice.signTransaction({
    chainId: o.chainId ?? 901,
    type: "eip1559",
    nonce: o.nonce,
    to: o.to ?? BOB,
    value: o.value ?? 1000n,
    gas: o.gas ?? 21_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1_000_000n,
    ...(o.data === undefined ? {} : { data: o.data }),
  });
}

/** fcU with attributes → getPayload → newPayload → fcU: one sealed and canonical block; returns the payload. */
export async function buildAndSeal(
  el: SimulatedExecutionClient,
  attrs: Record<string, unknown>,
  v: { fcu: number; get: number; np: number } = { fcu: 3, get: 4, np: 4 },
): Promise<Record<string, unknown>> {
  const head = el.head.hash;
  const fcs = { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: el.genesisHash };
  const r = await engine<{ payloadStatus: { status: string }; payloadId: Hex }>(
    el,
    `engine_forkchoiceUpdatedV${v.fcu}`,
    [fcs, attrs],
  );
  if (r.payloadStatus.status !== "VALID") throw new Error(`fcU: ${r.payloadStatus.status}`);
  const env = await engine(el, `engine_getPayloadV${v.get}`, [r.payloadId]);
  const payload = (v.get === 1 ? env : env.executionPayload) as Record<string, unknown>;
  const np = await engine<{ status: string }>(el, `engine_newPayloadV${v.np}`, newPayloadParams(payload, v.np, attrs));
  if (np.status !== "VALID") throw new Error(`newPayload: ${JSON.stringify(np)}`);
  const hash = payload.blockHash as Hash;
  const f = await engine<{ payloadStatus: { status: string } }>(el, "engine_forkchoiceUpdatedV3", [
    { headBlockHash: hash, safeBlockHash: head, finalizedBlockHash: el.genesisHash },
    null,
  ]);
  if (f.payloadStatus.status !== "VALID") throw new Error(`fcU2: ${f.payloadStatus.status}`);
  return payload;
}

export function newPayloadParams(
  payload: Record<string, unknown>,
  version: number,
  attrs?: Record<string, unknown>,
): unknown[] {
  const pbr = attrs?.parentBeaconBlockRoot ?? `0x${"cd".repeat(32)}`;
  if (version >= 4) return [payload, [], pbr, []];
  if (version === 3) return [payload, [], pbr];
  return [payload];
}

export { bytesToHex };

/** L1 base fee the blocks of `startMiner` carry in their L1-info deposit. */
export const MINER_L1_BASE_FEE = 10n ** 9n;

/**
 * Builds a block with the pool's transactions on `el` every `intervalMs` (as a sequencer would), each 2 s after its
 * parent, until `stop()`, which waits for the block in progress.
 */
export function startMiner(el: SimulatedExecutionClient, intervalMs = 100): { stop(): Promise<void> } {
  let stopped = false;
  let seq = 0;
  const loop = (async () => {
    while (!stopped) {
      const ts = el.head.header.timestamp + 2;
      const info = l1InfoJovian({ number: 100 + seq, time: ts - 1, seq: 0, baseFee: MINER_L1_BASE_FEE });
      await buildAndSeal(el, jovianAttrs(ts, [l1InfoDeposit(info, seq++)], { noTxPool: false }));
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** Resolves with the first value `subscribe` hands its callback (an event a client library emits); rejects after `ms`. */
export function firstEvent<T>(subscribe: (cb: (v: T) => void) => void, ms = 20_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("timed out waiting for an event")), ms);
    subscribe((v) => {
      clearTimeout(t);
      resolve(v);
    });
  });
}
