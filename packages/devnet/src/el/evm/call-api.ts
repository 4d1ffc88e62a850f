/**
 * JSON-RPC over real state (docs/adr/0111): `eth_call`, `eth_estimateGas` (geth's binary search), `eth_getCode`,
 * `eth_createAccessList`, `eth_simulateV1` (the common shape), and `debug_traceTransaction` / `debug_traceCall`
 * with geth's `callTracer`. Calls run in a throw-away EVM session on the block's state; nothing they do is kept.
 */
import {
  type Address,
  bytesToHex,
  type Hash,
  type Hex,
  isHex,
  quantityToBigint,
  toQuantity,
  ZERO_ADDRESS,
} from "supernode/core";
import { L1_BLOCK_PREDEPLOY } from "supernode/protocol";
import { RPC_INVALID_PARAMS, RpcError } from "supernode/json-rpc";
import { contextFor, forkActive } from "../block-builder.js";
import type { ElCore } from "../el-core.js";
import { BlockExecutor } from "../executor.js";
import type { RpcHandler } from "../json-rpc.js";
import { LedgerWriter } from "../ledger.js";
import type { SimAuthorization, SimBlock } from "../types.js";
import { type AppliedAuthorizations, applyAuthorizations } from "./authorizations.js";
import { ancestorHashes, evmBlockEnv, gasRulesFor } from "./block-env.js";
import { type CallFrame, CallTracer, decodeRevertReason } from "./call-tracer.js";
import { type EvmMessage, type EvmOutcome, EvmSession } from "./evm-session.js";
import { type AccessList, floorGasOf, intrinsicGasOf, MAX_TX_GAS, txGasUsed } from "./gas.js";

/** geth's default gas cap for calls (`--rpc.gascap`). */
const RPC_GAS_CAP = 50_000_000n;
/** geth's estimateGas stops when the bracket is within 1.5% of the answer. */
const ESTIMATE_ERROR_RATIO = 0.015;
const CALL_STIPEND = 2300n;

interface CallRequest {
  readonly from: Address;
  readonly to: Address | null;
  readonly value: bigint;
  readonly input: Hex;
  readonly gas: bigint | undefined;
  readonly gasPrice: bigint;
  readonly accessList: AccessList;
  /** EIP-7702 authorizations (applied before the call, as in a type-4 transaction). */
  readonly authorizationList?: readonly SimAuthorization[];
}

function qty(o: Record<string, unknown>, k: string): bigint | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  try {
    return quantityToBigint(v);
  } catch {
    throw new RpcError(RPC_INVALID_PARAMS, `invalid ${k}`);
  }
}

function addr(v: unknown, what: string): Address {
  if (!isHex(v) || v.length !== 42) throw new RpcError(RPC_INVALID_PARAMS, `invalid ${what}`);
  return v.toLowerCase() as Address;
}

export function parseCall(v: unknown): CallRequest {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new RpcError(RPC_INVALID_PARAMS, "invalid call object");
  const o = v as Record<string, unknown>;
  const input = (isHex(o.input) ? o.input : isHex(o.data) ? o.data : "0x") as Hex;
  return {
    from: o.from === undefined || o.from === null ? ZERO_ADDRESS : addr(o.from, "from"),
    to: o.to === undefined || o.to === null ? null : addr(o.to, "to"),
    value: qty(o, "value") ?? 0n,
    input: input.toLowerCase() as Hex,
    gas: qty(o, "gas"),
    gasPrice: qty(o, "gasPrice") ?? 0n,
    accessList: Array.isArray(o.accessList) ? (o.accessList as AccessList) : [],
    ...(Array.isArray(o.authorizationList) ? { authorizationList: o.authorizationList.map(parseAuthorization) } : {}),
  };
}

function parseAuthorization(v: unknown): SimAuthorization {
  if (typeof v !== "object" || v === null) throw new RpcError(RPC_INVALID_PARAMS, "invalid authorization");
  const o = v as Record<string, unknown>;
  const word = (k: string): Hex => `0x${(qty(o, k) ?? 0n).toString(16).padStart(64, "0")}`;
  return {
    chainId: qty(o, "chainId") ?? 0n,
    address: addr(o.address, "authorization address"),
    nonce: qty(o, "nonce") ?? 0n,
    yParity: Number(qty(o, "yParity") ?? qty(o, "v") ?? 0n),
    r: word("r"),
    s: word("s"),
  };
}

function forksAt(core: ElCore, t: number) {
  const f = (name: Parameters<typeof forkActive>[1]) => forkActive(core.params, name, t);
  return {
    canyon: f("canyon"),
    ecotone: f("ecotone"),
    fjord: f("fjord"),
    isthmus: f("isthmus"),
    jovian: f("jovian"),
    karst: f("karst"),
    lagoon: f("lagoon"),
  };
}

/** A scratch EVM session on top of `block`'s state, with `block`'s header as the block context. */
function sessionAt(core: ElCore, block: SimBlock): { session: EvmSession; writer: LedgerWriter } {
  const h = block.header;
  const first = block.txs[0];
  const l1Info = first?.to === L1_BLOCK_PREDEPLOY ? first.input : undefined;
  const writer = new LedgerWriter(block.state);
  const env = evmBlockEnv(
    {
      chainId: core.params.chainId,
      number: h.number,
      timestamp: h.timestamp,
      coinbase: h.miner,
      gasLimit: h.gasLimit,
      baseFee: h.baseFeePerGas ?? 0n,
      prevRandao: h.mixHash,
      blockHash: ancestorHashes((x) => core.chain.byHash(x), block),
    },
    forksAt(core, h.timestamp),
    () => l1Info,
  );
  return { session: new EvmSession(writer, env), writer };
}

/** Runs a call as a transaction would (nonce bumped, intrinsic gas taken first); the state is dropped. */
class CallRunner {
  readonly #session: EvmSession;
  readonly #intrinsic: bigint;
  readonly #floor: bigint;
  readonly #auth: AppliedAuthorizations | undefined;
  readonly #writer: LedgerWriter;
  readonly cap: bigint;

  constructor(
    core: ElCore,
    readonly block: SimBlock,
    readonly call: CallRequest,
  ) {
    const { session, writer } = sessionAt(core, block);
    this.#session = session;
    const forks = forksAt(core, block.header.timestamp);
    const rules = gasRulesFor(forks);
    this.#intrinsic = intrinsicGasOf(call, rules);
    this.#floor = floorGasOf(call.input, rules);
    let cap = call.gas ?? (block.header.gasLimit < RPC_GAS_CAP ? block.header.gasLimit : RPC_GAS_CAP);
    if (forks.karst && cap > MAX_TX_GAS) cap = MAX_TX_GAS;
    this.cap = cap;
    const balance = writer.account(call.from).balance;
    if (balance < call.value + cap * call.gasPrice)
      throw new RpcError(-32000, "insufficient funds for gas * price + value");
    writer.bumpNonce(call.from);
    this.#writer = writer;
    const list = call.authorizationList;
    this.#auth = list === undefined ? undefined : applyAuthorizations(writer, list, core.params.chainId);
  }

  /** Whether the call's destination has code (after the call's authorizations). */
  get toHasCode(): boolean {
    return this.call.to !== null && this.#writer.code(this.call.to) !== undefined;
  }

  get minGas(): bigint {
    if (this.#floor > this.#intrinsic) return this.#floor;
    return this.#intrinsic;
  }

  /** Runs with `gas` in all; undefined when the gas does not even cover the intrinsic gas. */
  async run(
    gas: bigint,
    extra: { tracer?: CallTracer; accessList?: boolean } = {},
  ): Promise<(EvmOutcome & { txGas: bigint }) | undefined> {
    if (gas < this.minGas) return undefined;
    const c = this.call;
    const m: EvmMessage = { ...c, gas: gas - this.#intrinsic, warm: this.#auth?.warm };
    const o = await this.#session.run(m, { keep: false, ...extra });
    const refund = o.refund + (this.#auth?.refund ?? 0n);
    return { ...o, txGas: txGasUsed(this.#intrinsic, o.gasUsed, refund, this.#floor) };
  }
}

/** A failed call as geth reports it: code 3 with the revert data for a revert, -32000 otherwise. */
function callError(o: EvmOutcome): RpcError {
  if (o.error === "revert") {
    const reason = decodeRevertReason(o.output);
    return new RpcError(3, reason === undefined ? "execution reverted" : `execution reverted: ${reason}`, o.output);
  }
  return new RpcError(-32000, o.error ?? "execution failed");
}

async function estimate(r: CallRunner): Promise<bigint> {
  let hi = r.cap;
  const first = await r.run(hi);
  if (first === undefined) throw new RpcError(-32000, "intrinsic gas too low");
  if (!first.success) {
    if (first.error === "revert") throw callError(first);
    throw new RpcError(-32000, `gas required exceeds allowance (${hi})`);
  }
  // geth: a call to an account without code needs exactly what it used
  if (r.call.to !== null && !r.toHasCode) return first.txGas;
  let lo = first.txGas - 1n;
  const optimistic = ((first.txGas + first.refund + CALL_STIPEND) * 64n) / 63n;
  if (optimistic < hi) {
    const o = await r.run(optimistic);
    if (o?.success === true) hi = optimistic;
    else lo = optimistic;
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < ESTIMATE_ERROR_RATIO) break;
    let mid = (hi + lo) / 2n;
    if (mid > lo * 2n) mid = lo * 2n;
    const o = await r.run(mid);
    if (o?.success === true) hi = mid;
    else lo = mid;
  }
  return hi;
}

function block(core: ElCore, sel: unknown): SimBlock {
  const b = core.resolve(sel ?? "latest");
  if (b === undefined) throw new RpcError(-32000, "header not found");
  return b;
}

export function evmEthMethods(core: ElCore): Map<string, RpcHandler> {
  const m = new Map<string, RpcHandler>();
  m.set("eth_call", async (ps) => {
    const r = new CallRunner(core, block(core, ps[1]), parseCall(ps[0]));
    const o = await r.run(r.cap);
    if (o === undefined) throw new RpcError(-32000, "intrinsic gas too low");
    if (!o.success) throw callError(o);
    return o.output;
  });
  m.set("eth_estimateGas", async (ps) =>
    toQuantity(await estimate(new CallRunner(core, block(core, ps[1]), parseCall(ps[0])))),
  );
  m.set("eth_getCode", (ps) =>
    bytesToHex(block(core, ps[1]).state.code(addr(ps[0], "address"))?.bytes ?? new Uint8Array(0)),
  );
  m.set("eth_createAccessList", async (ps) => {
    const b = block(core, ps[1]);
    const call = parseCall(ps[0]);
    const probe = new CallRunner(core, b, call);
    const o = await probe.run(probe.cap, { accessList: true });
    if (o === undefined) throw new RpcError(-32000, "intrinsic gas too low");
    const skip = new Set([call.from, call.to ?? ""]);
    const accessList = (o.accessList ?? []).filter((e) => !skip.has(e.address));
    const withList = new CallRunner(core, b, { ...call, accessList });
    const final = await withList.run(withList.cap);
    return {
      accessList,
      gasUsed: toQuantity(final?.txGas ?? o.txGas),
      ...(o.success ? {} : { error: callError(o).message }),
    };
  });
  m.set("eth_simulateV1", (ps) => simulate(core, ps));
  return m;
}

/** `eth_simulateV1`: each block's calls run in order on one scratch state; per call its result, logs and gas. */
async function simulate(core: ElCore, ps: readonly unknown[]): Promise<unknown[]> {
  const opts = (ps[0] ?? {}) as { blockStateCalls?: { calls?: unknown[] }[] };
  const base = block(core, ps[1]);
  const out: unknown[] = [];
  const { session, writer } = sessionAt(core, base);
  const rules = gasRulesFor(forksAt(core, base.header.timestamp));
  let n = base.header.number;
  for (const bsc of opts.blockStateCalls ?? []) {
    n++;
    let gasUsed = 0n;
    const calls: unknown[] = [];
    for (const raw of bsc.calls ?? []) {
      const c = parseCall(raw);
      const intrinsic = intrinsicGasOf(c, rules);
      const gas = c.gas ?? base.header.gasLimit - gasUsed;
      writer.bumpNonce(c.from);
      const o = await session.run({ ...c, gas: gas > intrinsic ? gas - intrinsic : 0n }, { keep: true });
      const used = txGasUsed(intrinsic, o.gasUsed, o.refund, floorGasOf(c.input, rules));
      gasUsed += used;
      calls.push({
        returnData: o.output,
        logs: o.logs.map((l, i) => ({ ...l, logIndex: toQuantity(i), blockNumber: toQuantity(n) })),
        gasUsed: toQuantity(used),
        status: o.success ? "0x1" : "0x0",
        ...(o.success
          ? {}
          : { error: { code: o.error === "revert" ? 3 : -32015, message: callError(o).message, data: o.output } }),
      });
    }
    out.push({
      number: toQuantity(n),
      timestamp: toQuantity(base.header.timestamp + (n - base.header.number)),
      gasLimit: toQuantity(base.header.gasLimit),
      gasUsed: toQuantity(gasUsed),
      baseFeePerGas: toQuantity(base.header.baseFeePerGas ?? 0n),
      calls,
    });
  }
  return out;
}

function tracerName(opts: unknown): string | undefined {
  const t = typeof opts === "object" && opts !== null ? (opts as { tracer?: unknown }).tracer : undefined;
  return typeof t === "string" ? t : undefined;
}

/** Re-executes the transaction's block up to it on the parent's state, tracing it. */
async function traceTx(core: ElCore, hash: unknown): Promise<CallFrame> {
  const loc = typeof hash === "string" ? core.chain.tx(hash as Hash) : undefined;
  if (loc === undefined) throw new RpcError(-32000, "transaction not found");
  const b = loc.block;
  const parent = core.chain.byHash(b.header.parentHash);
  if (parent === undefined) throw new RpcError(-32000, "parent block not found");
  const h = b.header;
  const ctx = contextFor(
    core.params,
    parent,
    h.timestamp,
    h.gasLimit,
    h.baseFeePerGas ?? 0n,
    h.miner,
    h.mixHash,
    ancestorHashes((x) => core.chain.byHash(x), parent),
  );
  const ex = new BlockExecutor(parent.state, ctx);
  ex.beginBlock(parent.hash, h.parentBeaconBlockRoot);
  for (let i = 0; i < loc.index; i++) await ex.apply(b.txs[i]!);
  const tracer = new CallTracer();
  await ex.apply(b.txs[loc.index]!, tracer);
  const tx = b.txs[loc.index]!;
  const receipt = b.receipts[loc.index]!;
  // A value transfer (no EVM run): one frame, as geth's tracer gives it.
  const root: CallFrame = tracer.root ?? {
    type: "CALL",
    from: tx.from,
    to: tx.to ?? receipt.contractAddress ?? ZERO_ADDRESS,
    value: toQuantity(tx.value),
    gas: toQuantity(tx.gas),
    gasUsed: "0x0",
    input: tx.input,
    output: "0x",
    ...(receipt.status === 0 ? { error: "execution reverted" } : {}),
  };
  return { ...root, gas: toQuantity(tx.gas), gasUsed: toQuantity(receipt.gasUsed) };
}

/** callTracer for `debug_traceTransaction` / `debug_traceCall`; other tracers go to `fallback`'s handlers. */
export function evmDebugMethods(core: ElCore, fallback: ReadonlyMap<string, RpcHandler>): Map<string, RpcHandler> {
  const m = new Map<string, RpcHandler>();
  const orElse = (name: string, ps: readonly unknown[]) => {
    const h = fallback.get(name);
    if (h === undefined) throw new RpcError(-32601, `the method ${name} does not exist/is not available`);
    return h(ps);
  };
  m.set("debug_traceTransaction", async (ps) =>
    tracerName(ps[1]) === "callTracer" ? traceTx(core, ps[0]) : orElse("debug_traceTransaction", ps),
  );
  m.set("debug_traceCall", async (ps) => {
    if (tracerName(ps[2]) !== "callTracer") return orElse("debug_traceCall", ps);
    const r = new CallRunner(core, block(core, ps[1]), parseCall(ps[0]));
    const tracer = new CallTracer();
    const o = await r.run(r.cap, { tracer });
    if (o === undefined || tracer.root === undefined) throw new RpcError(-32000, "intrinsic gas too low");
    return { ...tracer.root, gas: toQuantity(r.cap), gasUsed: toQuantity(o.txGas) };
  });
  return m;
}
