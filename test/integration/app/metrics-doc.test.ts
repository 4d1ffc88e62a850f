import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { metricsCatalogue } from "../../../src/app/metrics-catalogue.js";

const DOC = join(import.meta.dirname, "..", "..", "..", "docs", "metrics.md");

describe("docs/metrics.md", () => {
  it("lists every series of the registry (regenerate with UPDATE_METRICS_DOC=1)", async () => {
    const expected = await metricsCatalogue();
    if (process.env.UPDATE_METRICS_DOC === "1") writeFileSync(DOC, expected);
    expect(readFileSync(DOC, "utf8")).toBe(expected);
    expect(expected).toContain("`supernode_rpc_requests_total` | counter | `chain_id`, `method`, `status`");
  });
});
