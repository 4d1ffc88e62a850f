import { hexToBytes } from "../../core/codec/hex.js";
import { DecodeError } from "../../core/errors/supernode-error.js";
import { encodeDepositTx } from "../l2/deposit-tx.js";
import { asArray, asObject, type JsonObject, jsonBig, jsonBytes, jsonHex, jsonNum, jsonOptBig, req } from "./json.js";
import { rlpEncodeBytes, rlpEncodeListRaw, uintToBytes } from "./rlp.js";

/**
 * Re-encodes an `eth_getBlockBy*` / `eth_getTransactionBy*` transaction JSON object to its EIP-2718
 * bytes (legacy RLP for type 0). Supports types 0, 1, 2, 3 (blob), 4 (EIP-7702 set-code) and 0x7E (deposit).
 */
export function encodeRpcTransaction(json: unknown): Uint8Array {
  const o = asObject(json, "transaction");
  const type = o.type === undefined || o.type === null ? 0 : jsonNum(o, "type", "transaction");
  switch (type) {
    case 0:
      return encodeLegacy(o);
    case 1:
    case 2:
    case 3:
    case 4:
      return encodeTyped(type, o);
    case 0x7e:
      return encodeDeposit(o);
    default:
      throw new DecodeError(`transaction: unsupported type ${type}`);
  }
}

const W = "transaction";
const u = (o: JsonObject, n: string): Uint8Array => uintToBytes(jsonBig(o, n, W));

function toField(o: JsonObject): Uint8Array {
  const v = o.to;
  if (v === undefined || v === null) return new Uint8Array(0);
  return jsonBytes(o, "to", W, 20);
}

function input(o: JsonObject): Uint8Array {
  // Some clients call it `data`.
  if (o.input === undefined && o.data !== undefined) return jsonBytes(o, "data", W);
  return jsonBytes(o, "input", W);
}

function sigFields(o: JsonObject, typed: boolean): Uint8Array[] {
  let v: bigint;
  if (typed && o.yParity !== undefined && o.yParity !== null) v = jsonBig(o, "yParity", W);
  else v = jsonBig(o, "v", W);
  return [uintToBytes(v), u(o, "r"), u(o, "s")];
}

function encodeLegacy(o: JsonObject): Uint8Array {
  const fields = [u(o, "nonce"), u(o, "gasPrice"), u(o, "gas"), toField(o), u(o, "value"), input(o)];
  return rlpEncodeListRaw([...fields, ...sigFields(o, false)].map(rlpEncodeBytes));
}

function accessList(o: JsonObject): Uint8Array {
  const list = o.accessList === undefined || o.accessList === null ? [] : asArray(o.accessList, "accessList");
  return rlpEncodeListRaw(
    list.map((entry) => {
      const e = asObject(entry, "accessList entry");
      const keys = asArray(req(e, "storageKeys", "accessList entry"), "storageKeys").map((k) => {
        if (typeof k !== "string") throw new DecodeError("accessList: storage key is not hex");
        const b = hexToBytes(k);
        if (b.length !== 32) throw new DecodeError("accessList: storage key must be 32 bytes");
        return rlpEncodeBytes(b);
      });
      return rlpEncodeListRaw([
        rlpEncodeBytes(jsonBytes(e, "address", "accessList entry", 20)),
        rlpEncodeListRaw(keys),
      ]);
    }),
  );
}

function authorizationList(o: JsonObject): Uint8Array {
  const list = asArray(req(o, "authorizationList", W), "authorizationList");
  return rlpEncodeListRaw(
    list.map((entry) => {
      const a = asObject(entry, "authorization");
      const w = "authorization";
      const yParity = a.yParity !== undefined ? jsonBig(a, "yParity", w) : jsonBig(a, "v", w);
      return rlpEncodeListRaw(
        [
          uintToBytes(jsonBig(a, "chainId", w)),
          jsonBytes(a, "address", w, 20),
          uintToBytes(jsonBig(a, "nonce", w)),
          uintToBytes(yParity),
          uintToBytes(jsonBig(a, "r", w)),
          uintToBytes(jsonBig(a, "s", w)),
        ].map(rlpEncodeBytes),
      );
    }),
  );
}

function encodeTyped(type: number, o: JsonObject): Uint8Array {
  const enc: Uint8Array[] = [rlpEncodeBytes(u(o, "chainId")), rlpEncodeBytes(u(o, "nonce"))];
  if (type === 1) {
    enc.push(rlpEncodeBytes(u(o, "gasPrice")));
  } else {
    enc.push(rlpEncodeBytes(u(o, "maxPriorityFeePerGas")), rlpEncodeBytes(u(o, "maxFeePerGas")));
  }
  enc.push(rlpEncodeBytes(u(o, "gas")));
  if (type === 3 || type === 4) {
    // Blob and set-code transactions cannot create contracts.
    enc.push(rlpEncodeBytes(jsonBytes(o, "to", W, 20)));
  } else {
    enc.push(rlpEncodeBytes(toField(o)));
  }
  enc.push(rlpEncodeBytes(u(o, "value")), rlpEncodeBytes(input(o)), accessList(o));
  if (type === 3) {
    enc.push(rlpEncodeBytes(u(o, "maxFeePerBlobGas")));
    const hashes = asArray(req(o, "blobVersionedHashes", W), "blobVersionedHashes").map((h) => {
      if (typeof h !== "string") throw new DecodeError("blobVersionedHashes: not hex");
      const b = hexToBytes(h);
      if (b.length !== 32) throw new DecodeError("blob versioned hash must be 32 bytes");
      return rlpEncodeBytes(b);
    });
    enc.push(rlpEncodeListRaw(hashes));
  }
  if (type === 4) enc.push(authorizationList(o));
  for (const s of sigFields(o, true)) enc.push(rlpEncodeBytes(s));
  const body = rlpEncodeListRaw(enc);
  const out = new Uint8Array(body.length + 1);
  out[0] = type;
  out.set(body, 1);
  return out;
}

function encodeDeposit(o: JsonObject): Uint8Array {
  const to = o.to === undefined || o.to === null ? null : jsonHex(o, "to", W, 20);
  const mint = jsonOptBig(o, "mint", W) ?? 0n;
  const sys = o.isSystemTx;
  if (sys !== undefined && sys !== null && typeof sys !== "boolean") throw new DecodeError("isSystemTx is not a bool");
  return encodeDepositTx({
    sourceHash: jsonHex(o, "sourceHash", W, 32),
    from: jsonHex(o, "from", W, 20),
    to,
    mint,
    value: jsonBig(o, "value", W),
    gas: jsonBig(o, "gas", W),
    isSystemTx: sys === true,
    data: o.input === undefined && o.data !== undefined ? jsonHex(o, "data", W) : jsonHex(o, "input", W),
  });
}
