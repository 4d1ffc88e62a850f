import { quantityToBigint, toQuantity } from "../../core/codec/quantity.js";
import type { ExecutionPayload, ExecutionPayloadEnvelope } from "../engine-api-types.js";
import type { PendingTransition } from "./types.js";

/**
 * The interop activity's write-ahead record as JSON. The execution payloads it carries hold `bigint` gas and fee
 * fields, which are written as quantities (`0x…`) and read back as `bigint`; everything else is plain JSON.
 */
const BIG_FIELDS = ["gasLimit", "gasUsed", "baseFeePerGas", "blobGasUsed", "excessBlobGas"] as const;

type Envelopes<T> = Readonly<Record<string, T>>;

function mapEnvelope(env: ExecutionPayloadEnvelope, f: (v: unknown) => unknown): ExecutionPayloadEnvelope {
  const p: Record<string, unknown> = { ...env.executionPayload };
  for (const k of BIG_FIELDS) if (p[k] !== undefined) p[k] = f(p[k]);
  return { ...env, executionPayload: p as unknown as ExecutionPayload };
}

function mapTransition(t: PendingTransition, f: (v: unknown) => unknown): PendingTransition {
  const each = <T>(m: Envelopes<T>, g: (v: T) => T): Envelopes<T> =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, g(v)]));
  if (t.kind === "invalidate" && t.payloads !== undefined)
    return {
      ...t,
      payloads: each(t.payloads, (p) => ({ invalid: mapEnvelope(p.invalid, f), parent: mapEnvelope(p.parent, f) })),
    };
  if (t.kind === "rewind" && t.targets !== undefined)
    return { ...t, targets: each(t.targets, (e) => mapEnvelope(e, f)) };
  return t;
}

export function pendingTransitionToJson(t: PendingTransition): string {
  return JSON.stringify(mapTransition(t, (v) => toQuantity(v as bigint)));
}

export function pendingTransitionFromJson(json: string): PendingTransition {
  return mapTransition(JSON.parse(json) as PendingTransition, quantityToBigint);
}
