import {
  type Address,
  bytesToHex,
  type Hash,
  type Hex,
  hexToBytes,
  isHex,
  quantityToBigint,
  toQuantity,
  ZERO_ADDRESS,
} from "supernode/core";
import { keccak } from "supernode/protocol";
import type { ElCore } from "./el-core.js";
import { evmDebugMethods } from "./evm/call-api.js";
import { MESSAGE_PASSER_ADDRESS, MESSAGE_PASSER_GAS } from "./executor.js";
import { RPC_INVALID_PARAMS, RpcError } from "supernode/json-rpc";
import type { RpcHandler } from "./json-rpc.js";
import { intrinsicGas } from "./tx-decode.js";
import type { SimBlock, Variant } from "./types.js";

const q = toQuantity;

/** Client version string naming the variant, e.g. `sim-variant-a/v0.1.0/linux-x64/node20.19.0`. */
export function clientVersion(variant: Variant): string {
  return `sim-variant-${variant}/v0.1.0/${process.platform}-${process.arch}/node${process.versions.node}`;
}

/** `net_*`, `web3_*` and (variant B only) `rpc_modules`. */
export function baseMethods(core: ElCore, namespaces: readonly string[]): Map<string, RpcHandler> {
  const m = new Map<string, RpcHandler>();
  m.set("net_version", () => core.params.chainId.toString());
  m.set("net_listening", () => true);
  m.set("net_peerCount", () => "0x0");
  m.set("web3_clientVersion", () => clientVersion(core.variant));
  m.set("web3_sha3", (ps) => {
    if (!isHex(ps[0])) throw new RpcError(RPC_INVALID_PARAMS, "invalid data");
    return bytesToHex(keccak(hexToBytes(ps[0])));
  });
  if (core.variant === "b") {
    m.set("rpc_modules", () => Object.fromEntries([...namespaces, "rpc"].map((ns) => [ns, "1.0"])));
  }
  return m;
}

interface CallNode {
  type: "CALL";
  from: Address;
  to: Address;
  value: Hex;
  gas: Hex;
  gasUsed: Hex;
  input: Hex;
  output: Hex;
  error?: string;
  calls?: CallNode[];
}

function findTx(core: ElCore, hash: unknown): { block: SimBlock; index: number } {
  const loc = typeof hash === "string" ? core.chain.tx(hash as Hash) : undefined;
  if (loc === undefined) throw new RpcError(-32000, "transaction not found");
  return loc;
}

function callNode(b: SimBlock, index: number): CallNode {
  const tx = b.txs[index]!;
  const r = b.receipts[index]!;
  return {
    type: "CALL",
    from: tx.from,
    to: tx.to ?? r.contractAddress ?? ZERO_ADDRESS,
    value: q(tx.value),
    gas: q(tx.gas),
    gasUsed: q(r.gasUsed),
    input: tx.input,
    output: "0x",
    ...(r.status === 0 ? { error: "execution reverted" } : {}),
  };
}

function tracerOf(opts: unknown): string | undefined {
  if (typeof opts !== "object" || opts === null) return undefined;
  const t = (opts as { tracer?: unknown }).tracer;
  return typeof t === "string" ? t : undefined;
}

function traceResult(node: CallNode, tracer: string | undefined): unknown {
  if (tracer === "callTracer") return node;
  if (tracer !== undefined) throw new RpcError(-32000, `tracer ${tracer} not supported by the simulator`);
  return {
    gas: Number(quantityToBigint(node.gasUsed)),
    failed: node.error !== undefined,
    returnValue: "",
    structLogs: [],
  };
}

/** `debug_traceTransaction`, `debug_traceCall`, `debug_traceBlockByNumber/Hash` for value transfers. */
export function debugMethods(core: ElCore): Map<string, RpcHandler> {
  const m = new Map<string, RpcHandler>();
  m.set("debug_traceTransaction", (ps) => {
    const loc = findTx(core, ps[0]);
    return traceResult(callNode(loc.block, loc.index), tracerOf(ps[1]));
  });
  const traceBlock = (b: SimBlock | undefined, opts: unknown) => {
    if (b === undefined) throw new RpcError(-32000, "block not found");
    return b.txs.map((tx, i) => ({ txHash: tx.hash, result: traceResult(callNode(b, i), tracerOf(opts)) }));
  };
  m.set("debug_traceBlockByNumber", (ps) => traceBlock(core.resolve(ps[0]), ps[1]));
  m.set("debug_traceBlockByHash", (ps) => traceBlock(core.chain.byHash(String(ps[0]) as Hash), ps[1]));
  m.set("debug_traceCall", (ps) => {
    const c = ps[0];
    if (typeof c !== "object" || c === null) throw new RpcError(RPC_INVALID_PARAMS, "invalid call object");
    const call = c as Record<string, unknown>;
    if (core.resolve(ps[1]) === undefined) throw new RpcError(-32000, "header not found");
    const input = (isHex(call.data) ? call.data : isHex(call.input) ? call.input : "0x") as Hex;
    const to = (isHex(call.to) ? call.to.toLowerCase() : ZERO_ADDRESS) as Address;
    const used = intrinsicGas(input, false) + (to === MESSAGE_PASSER_ADDRESS ? MESSAGE_PASSER_GAS : 0n);
    const node: CallNode = {
      type: "CALL",
      from: (isHex(call.from) ? call.from.toLowerCase() : ZERO_ADDRESS) as Address,
      to,
      value: isHex(call.value) ? q(quantityToBigint(call.value)) : "0x0",
      gas: isHex(call.gas) ? q(quantityToBigint(call.gas)) : q(50_000_000n),
      gasUsed: q(used),
      input,
      output: "0x",
    };
    return traceResult(node, tracerOf(ps[2]));
  });
  return new Map([...m, ...evmDebugMethods(core, m)]);
}

/** Parity-style `trace_*` (variant A with `trace` in `--http.api`). */
export function traceMethods(core: ElCore): Map<string, RpcHandler> {
  const m = new Map<string, RpcHandler>();
  const flat = (b: SimBlock, i: number) => {
    const n = callNode(b, i);
    return {
      action: { from: n.from, callType: "call", gas: n.gas, input: n.input, to: n.to, value: n.value },
      blockHash: b.hash,
      blockNumber: b.header.number,
      result: n.error === undefined ? { gasUsed: n.gasUsed, output: "0x" } : null,
      ...(n.error === undefined ? {} : { error: "Reverted" }),
      subtraces: 0,
      traceAddress: [],
      transactionHash: b.txs[i]!.hash,
      transactionPosition: i,
      type: "call",
    };
  };
  m.set("trace_transaction", (ps) => {
    const loc = findTx(core, ps[0]);
    return [flat(loc.block, loc.index)];
  });
  m.set("trace_block", (ps) => {
    const b = core.resolve(ps[0]);
    return b === undefined ? null : b.txs.map((_, i) => flat(b, i));
  });
  m.set("trace_call", (ps) => {
    const c = (ps[0] ?? {}) as Record<string, unknown>;
    const input = (isHex(c.data) ? c.data : "0x") as Hex;
    return {
      output: "0x",
      stateDiff: null,
      trace: [
        {
          action: {
            from: isHex(c.from) ? c.from.toLowerCase() : ZERO_ADDRESS,
            callType: "call",
            gas: isHex(c.gas) ? c.gas : q(50_000_000n),
            input,
            to: isHex(c.to) ? c.to.toLowerCase() : ZERO_ADDRESS,
            value: isHex(c.value) ? c.value : "0x0",
          },
          result: { gasUsed: q(intrinsicGas(input, false)), output: "0x" },
          subtraces: 0,
          traceAddress: [],
          type: "call",
        },
      ],
      vmTrace: null,
    };
  });
  return m;
}
