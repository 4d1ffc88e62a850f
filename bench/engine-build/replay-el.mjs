// The `engine-build` benchmark's execution client: a bare node:http JSON-RPC server on 127.0.0.1 that answers the
// Engine API build path the way an OP execution client would for derived attributes (noTxPool): a payload id for
// forkchoiceUpdated with attributes, then getPayload returns a payload holding exactly the attributes' transactions
// on top of the forkchoice head, and newPayload / forkchoiceUpdated answer VALID. No execution: the point is the
// node's CPU per built block. Prints "READY <port>" on stdout.
import { createHash } from "node:crypto";
import { createServer } from "node:http";

const ZERO32 = `0x${"00".repeat(32)}`;
const numbers = new Map(); // block hash → number (genesis: any unknown head is number 0)
const pending = new Map(); // payload id → { head, attrs }
let nextId = 1;
// REPLAY_EL_DELAY_MS: answer every request this late (an EL that takes time to execute; the node idles meanwhile).
const DELAY_MS = Number(process.env.REPLAY_EL_DELAY_MS ?? 0);
const quantity = (n) => `0x${n.toString(16)}`;
const h32 = (s) => `0x${createHash("sha256").update(s).digest("hex")}`;

function handle(call) {
  const { method, params } = call;
  if (method.startsWith("engine_forkchoiceUpdated")) {
    const [fc, attrs] = params;
    const status = { status: "VALID", latestValidHash: fc.headBlockHash, validationError: null };
    if (attrs === null || attrs === undefined) return { payloadStatus: status, payloadId: null };
    const id = `0x${(nextId++).toString(16).padStart(16, "0")}`;
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
    if (DELAY_MS > 0) setTimeout(() => reply(parts, res), DELAY_MS);
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
