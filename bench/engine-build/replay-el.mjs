// The `engine-build` benchmark's execution client: a bare node:http JSON-RPC server on 127.0.0.1 that answers the
// Engine API build path the way an OP execution client would for derived attributes (noTxPool): a payload id for
// forkchoiceUpdated with attributes (op-geth's id, or a counter's), then getPayload returns a payload holding exactly the attributes' transactions
// on top of the forkchoice head, and newPayload / forkchoiceUpdated answer VALID. No execution: the point is the
// node's CPU per built block. Prints "READY <port>" on stdout.
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { createKeccak } from "hash-wasm";

const ZERO32 = `0x${"00".repeat(32)}`;
const numbers = new Map(); // block hash → number (genesis: any unknown head is number 0)
const pending = new Map(); // payload id → { head, attrs }
let nextId = 1;
// REPLAY_EL_DELAY_MS: answer every request this late (an EL that takes time to execute; the node idles meanwhile).
const DELAY_MS = Number(process.env.REPLAY_EL_DELAY_MS ?? 0);
// REPLAY_EL_BUILD_MS: answer a request holding a build start (forkchoiceUpdated with attributes) this much later
// (on top of REPLAY_EL_DELAY_MS): op-geth builds a noTxPool payload inside forkchoiceUpdated, so its getPayload and
// the newPayload of that block answer at once.
const BUILD_MS = Number(process.env.REPLAY_EL_BUILD_MS ?? 0);
// REPLAY_EL_SEAL_MS: answer a request holding a getPayload this much later (the simulated EL takes ~0.6 ms to hand
// out a sealed payload of the derivation bench's blocks, its build start ~2.7 ms).
const SEAL_MS = Number(process.env.REPLAY_EL_SEAL_MS ?? 0);
const seals = (parts) => Buffer.concat(parts).toString("latin1").includes("engine_getPayload");
const startsBuild = (parts) => {
  const text = Buffer.concat(parts).toString("latin1");
  return text.includes("engine_forkchoiceUpdated") && text.includes('"timestamp"');
};
// REPLAY_EL_IDS=counter: payload ids from a counter (an EL whose ids the node cannot predict: every derived block
// then takes a separate getPayload); default: op-geth's ids (BuildPayloadArgs.Id, docs/performance.md).
const COUNTER_IDS = process.env.REPLAY_EL_IDS === "counter";
const quantity = (n) => `0x${n.toString(16)}`;

const k256 = await createKeccak(256);
const keccak = (b) => {
  k256.init();
  k256.update(b);
  return k256.digest("binary");
};
const hexBytes = (h) => Buffer.from(h.slice(2), "hex");
const u64 = (v) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(v));
  return b;
};

/** op-geth's payload id of JSON attributes on `parent` (written here from the rule, independently of the node's). */
function opGethPayloadId(parent, a, method) {
  const parts = [hexBytes(parent), u64(a.timestamp), hexBytes(a.prevRandao), hexBytes(a.suggestedFeeRecipient)];
  parts.push(Buffer.of(0xc0)); // RLP of the (empty) withdrawals list
  if (a.parentBeaconBlockRoot) parts.push(hexBytes(a.parentBeaconBlockRoot));
  const txs = a.transactions ?? [];
  if (a.noTxPool === true || txs.length > 0) {
    parts.push(Buffer.of(a.noTxPool === true ? 1 : 0), u64(txs.length));
    for (const t of txs) parts.push(Buffer.from(keccak(hexBytes(t))));
  }
  if (a.gasLimit !== undefined && a.gasLimit !== null) parts.push(u64(a.gasLimit));
  if (a.eip1559Params) parts.push(hexBytes(a.eip1559Params));
  if (a.minBaseFee !== undefined && a.minBaseFee !== null) parts.push(u64(a.minBaseFee));
  const d = createHash("sha256").update(Buffer.concat(parts)).digest();
  d[0] = Number(method.slice(-1));
  return `0x${d.subarray(0, 8).toString("hex")}`;
}
const h32 = (s) => `0x${createHash("sha256").update(s).digest("hex")}`;

function handle(call) {
  const { method, params } = call;
  if (method.startsWith("engine_forkchoiceUpdated")) {
    const [fc, attrs] = params;
    const status = { status: "VALID", latestValidHash: fc.headBlockHash, validationError: null };
    if (attrs === null || attrs === undefined) return { payloadStatus: status, payloadId: null };
    const id = COUNTER_IDS
      ? `0x${(nextId++).toString(16).padStart(16, "0")}`
      : opGethPayloadId(fc.headBlockHash, attrs, method);
    pending.set(id, { head: fc.headBlockHash, attrs });
    return { payloadStatus: status, payloadId: id };
  }
  if (method.startsWith("engine_getPayload")) {
    const p = pending.get(params[0]);
    if (p === undefined) throw Object.assign(new Error("Unknown payload"), { code: -38001 });
    pending.delete(params[0]);
    const number = (numbers.get(p.head) ?? 0) + 1;
    const blockHash = h32(`${p.head}:${p.attrs.timestamp}:${number}`);
    numbers.set(blockHash, number);
    return {
      executionPayload: {
        parentHash: p.head,
        feeRecipient: p.attrs.suggestedFeeRecipient,
        stateRoot: h32(`state-${number}`),
        receiptsRoot: h32(`receipts-${number}`),
        logsBloom: `0x${"00".repeat(256)}`,
        prevRandao: p.attrs.prevRandao,
        blockNumber: quantity(number),
        gasLimit: p.attrs.gasLimit,
        gasUsed: quantity(21_000 * p.attrs.transactions.length),
        timestamp: p.attrs.timestamp,
        extraData: `0x00${(p.attrs.eip1559Params ?? "0x0000000000000000").slice(2)}`,
        baseFeePerGas: "0x3b9aca00",
        blockHash,
        transactions: p.attrs.transactions,
        withdrawals: [],
        blobGasUsed: "0x0",
        excessBlobGas: "0x0",
        withdrawalsRoot: h32(`withdrawals-${number}`),
      },
      blockValue: "0x0",
      blobsBundle: { commitments: [], proofs: [], blobs: [] },
      shouldOverrideBuilder: false,
      parentBeaconBlockRoot: p.attrs.parentBeaconBlockRoot ?? ZERO32,
      executionRequests: [],
    };
  }
  if (method.startsWith("engine_newPayload")) {
    return { status: "VALID", latestValidHash: params[0].blockHash, validationError: null };
  }
  if (method === "eth_chainId") return "0x385";
  throw Object.assign(new Error(`method ${method} not found`), { code: -32601 });
}

function answer(call) {
  try {
    return { jsonrpc: "2.0", id: call.id, result: handle(call) };
  } catch (err) {
    return { jsonrpc: "2.0", id: call.id, error: { code: err.code ?? -32603, message: err.message } };
  }
}

const server = createServer((req, res) => {
  const parts = [];
  req.on("data", (d) => parts.push(d));
  req.on("end", () => {
    const delay =
      DELAY_MS + (BUILD_MS > 0 && startsBuild(parts) ? BUILD_MS : 0) + (SEAL_MS > 0 && seals(parts) ? SEAL_MS : 0);
    if (delay > 0) setTimeout(() => reply(parts, res), delay);
    else reply(parts, res);
  });
});

let requests = 0;
let batched = 0;
function reply(parts, res) {
  {
    const body = JSON.parse(Buffer.concat(parts).toString("utf8"));
    requests++;
    if (Array.isArray(body)) batched++;
    const out = JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body));
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(out) });
    res.end(out);
  }
}
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`READY ${server.address().port}\n`));
process.on("SIGTERM", () => {
  process.stderr.write(`replay EL: ${requests} requests, ${batched} of them batches\n`);
  process.exit(0);
});
