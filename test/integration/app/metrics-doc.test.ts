import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { metricsCatalogue } from "../../../src/app/metrics-catalogue.js";

const DOC = join(import.meta.dirname, "..", "..", "..", "docs", "metrics.md");

describe("docs/metrics.md", () => {
  it("lists every series of the registry (regenerate with UPDATE_METRICS_DOC=1)", async () => {
    const expected = await metricsCatalogue();
    // Compare with the doc as it was on disk: update mode rewrites it but still fails when it was stale, so it can
    // never pass by comparing the doc with itself.
    const onDisk = readFileSync(DOC, "utf8");
    if (process.env.UPDATE_METRICS_DOC === "1" && onDisk !== expected) writeFileSync(DOC, expected);
    expect(onDisk, "docs/metrics.md is stale (rewritten if UPDATE_METRICS_DOC=1; run again)").toBe(expected);
    expect(expected).toContain("`supernode_rpc_requests_total` | counter | `chain_id`, `method`, `status`");
    expect(expected).toContain("`supernode_upstream_response_too_large_total` | counter | `upstream`, `chain_id`");
  });
});
