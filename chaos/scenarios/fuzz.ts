/**
 * Generated malformed JSON-RPC requests (fast-check, seeded) against the sequencer's RPC server, each checked
 * against the JSON-RPC 2.0 answer it must get: -32700 for unparsable bodies, -32600 with `id: null` for invalid
 * requests, -32601 for unknown methods, -32602 for bad parameters, element-wise for batches.
 */
import fc from "fast-check";
import { type Ctx, note } from "../context.js";

interface Case {
  readonly kind: string;
  readonly body: string;
  /** Expected error code and id, or per element for a batch. */
  readonly expect: { code: number; id: unknown } | readonly { code: number; id: unknown }[];
}

const KNOWN_WITH_PARAMS = ["stack_outputAtBlock", "stack_safeHeadAtL1Block"];

const id = fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.string({ minLength: 1, maxLength: 8 }));
const junkValue = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 12 }),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
);

const unparsable: fc.Arbitrary<Case> = fc
  .string({ minLength: 1, maxLength: 40 })
  .map((s) => `{${s}`)
  .filter((s) => {
    try {
      JSON.parse(s);
      return false;
    } catch {
      return true;
    }
  })
  .map((body) => ({ kind: "parse", body, expect: { code: -32700, id: null } }));

const notAnObject: fc.Arbitrary<Case> = fc
  .oneof(fc.integer(), fc.string({ maxLength: 12 }), fc.boolean(), fc.constant(null))
  .map((v) => ({ kind: "not-object", body: JSON.stringify(v), expect: { code: -32600, id: null } }));

/** Objects that are not requests (wrong/missing jsonrpc or method), without an id. */
const invalidNoId: fc.Arbitrary<Case> = fc
  .record({
    jsonrpc: fc.option(fc.constantFrom("1.0", "2", 2), { nil: undefined }),
    method: fc.option(fc.oneof(fc.integer(), fc.boolean(), fc.constant(null)), { nil: undefined }),
    extra: fc.option(junkValue, { nil: undefined }),
  })
  .map((r) => ({ kind: "invalid-no-id", body: JSON.stringify(r), expect: { code: -32600, id: null } }));

/** Invalid requests that carry an id: -32600 (the id is echoed or null). */
const invalidWithId: fc.Arbitrary<Case> = fc
  .record({ id, jsonrpc: fc.constantFrom("1.0", undefined), method: fc.oneof(fc.integer(), fc.constant(null)) })
  .map((r) => ({ kind: "invalid-with-id", body: JSON.stringify(r), expect: { code: -32600, id: r.id } }));

const unknownMethod: fc.Arbitrary<Case> = fc
  .record({ id, method: fc.stringMatching(/^[a-z]{1,8}_[a-zA-Z]{1,12}$/) })
  .filter((r) => !r.method.startsWith("stack_") && !r.method.startsWith("admin_"))
  .map((r) => ({
    kind: "unknown-method",
    body: JSON.stringify({ jsonrpc: "2.0", id: r.id, method: r.method, params: [] }),
    expect: { code: -32601, id: r.id },
  }));

const badParams: fc.Arbitrary<Case> = fc
  .record({
    id,
    method: fc.constantFrom(...KNOWN_WITH_PARAMS),
    params: fc.oneof(
      fc.constant([]),
      fc.tuple(
        fc.oneof(
          fc.boolean(),
          fc.constant(null),
          fc.string({ maxLength: 6 }).map((s) => `zz${s}`),
        ),
      ),
      fc.tuple(fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 })),
    ),
  })
  .map((r) => ({
    kind: "bad-params",
    body: JSON.stringify({ jsonrpc: "2.0", id: r.id, method: r.method, params: r.params }),
    expect: { code: -32602, id: r.id },
  }));

const batch: fc.Arbitrary<Case> = fc
  .array(fc.oneof(unknownMethod, badParams, invalidWithId), { minLength: 1, maxLength: 4 })
  .map((items) => ({
    kind: "batch",
    body: `[${items.map((i) => i.body).join(",")}]`,
    expect: items.map((i) => i.expect as { code: number; id: unknown }),
  }));

const emptyBatch: fc.Arbitrary<Case> = fc.constant({
  kind: "empty-batch",
  body: "[]",
  expect: { code: -32600, id: null },
});

const anyCase = fc.oneof(
  unparsable,
  notAnObject,
  invalidNoId,
  invalidWithId,
  unknownMethod,
  badParams,
  batch,
  emptyBatch,
);

function matches(got: unknown, want: { code: number; id: unknown }): boolean {
  const g = got as { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown } } | null;
  return g?.jsonrpc === "2.0" && g.error?.code === want.code && (g.id === want.id || g.id === null);
}

export async function fuzzScenario(ctx: Ctx): Promise<void> {
  const { world, plan, figures } = ctx;
  const url = `${world.node("seq").rpcUrl}/901/`;
  const cases = fc.sample(anyCase, { numRuns: plan.fuzzRequests, seed: plan.seed });
  const mismatches = new Map<string, number>();
  const examples: string[] = [];
  let next = 0;
  let sent = 0;
  let transportErrors = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++] as Case;
      let ok = false;
      let got = "";
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: c.body,
          signal: AbortSignal.timeout(10_000),
        });
        got = `${res.status} ${await res.text()}`;
        const body = JSON.parse(got.slice(got.indexOf(" ") + 1)) as unknown;
        if (Array.isArray(c.expect))
          ok =
            Array.isArray(body) &&
            body.length === c.expect.length &&
            c.expect.every((w, i) => matches(body[i], w as { code: number; id: unknown }));
        else ok = matches(body, c.expect as { code: number; id: unknown });
      } catch (err) {
        if (got === "") transportErrors++;
        got ||= String(err);
      }
      sent++;
      if (!ok) {
        mismatches.set(c.kind, (mismatches.get(c.kind) ?? 0) + 1);
        if (examples.length < 5) examples.push(`${c.kind}: ${c.body.slice(0, 80)} → ${got.slice(0, 120)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  figures.set("fuzz_requests", sent);
  figures.set(
    "fuzz_mismatches",
    [...mismatches.values()].reduce((a, b) => a + b, 0),
  );
  figures.set("fuzz_transport_errors", transportErrors);
  note(`fuzz: ${sent} requests, mismatches by kind ${JSON.stringify(Object.fromEntries(mismatches))}`);
  for (const e of examples) note(`  e.g. ${e}`);
}
