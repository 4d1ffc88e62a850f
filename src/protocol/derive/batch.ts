/**
 * Typed batch data: `batch_type (1 byte) ‖ body`; in a channel each typed batch is one RLP byte string.
 * Type 0 = singular batch, type 1 = span batch (raw columns; derive with `deriveSpanBatch`).
 */
import { DecodeError } from "../../core/errors/supernode-error.js";
import { decodeSingularBatch, encodeSingularBatch, type SingularBatch } from "./batch-singular.js";
import { decodeRawSpanBatch, type RawSpanBatch } from "./batch-span.js";
import { encodeRawSpanBatch } from "./batch-span-encode.js";

export const SINGULAR_BATCH_TYPE = 0;
export const SPAN_BATCH_TYPE = 1;

/** A decoded batch as it appears in a channel. */
export type BatchData =
  | { readonly type: typeof SINGULAR_BATCH_TYPE; readonly batch: SingularBatch }
  | { readonly type: typeof SPAN_BATCH_TYPE; readonly batch: RawSpanBatch };

/** Decodes a typed batch (type byte first). Throws `DecodeError` on an unknown type or a bad body. */
export function decodeBatch(typed: Uint8Array): BatchData {
  if (typed.length === 0) throw new DecodeError("batch too short");
  const body = typed.subarray(1);
  switch (typed[0]) {
    case SINGULAR_BATCH_TYPE:
      return { type: SINGULAR_BATCH_TYPE, batch: decodeSingularBatch(body) };
    case SPAN_BATCH_TYPE:
      return { type: SPAN_BATCH_TYPE, batch: decodeRawSpanBatch(body) };
    default:
      throw new DecodeError("unrecognized batch type", { type: typed[0] });
  }
}

/** Encodes a typed batch (type byte ‖ body). */
export function encodeBatch(batch: BatchData): Uint8Array {
  const body = batch.type === SINGULAR_BATCH_TYPE ? encodeSingularBatch(batch.batch) : encodeRawSpanBatch(batch.batch);
  const out = new Uint8Array(body.length + 1);
  out[0] = batch.type;
  out.set(body, 1);
  return out;
}
