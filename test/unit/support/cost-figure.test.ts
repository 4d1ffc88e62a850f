import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { printCostFigure, supernodeFrom } from "../../support/reference.js";

// The reference tests' CPU and RSS figures of a supernode process (test/support/reference.ts): a process that ran
// the sources through tsx (bin/supernode.js, dist/ older than src/) never yields a ratio.
const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function printed(fn: () => void): Record<string, unknown> {
  const lines: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((s) => {
    lines.push(String(s));
    return true;
  });
  fn();
  vi.restoreAllMocks();
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string) as Record<string, unknown>;
}

describe("printCostFigure", () => {
  it("prints the ratio of a process that ran the compiled dist/", () => {
    const line = printed(() => printCostFigure("cpu_per_block_vs_opnode", 1.25, "dist", { blocks: 100, value: 9 }));
    expect(line).toEqual({
      bench: "reference",
      figure: "cpu_per_block_vs_opnode",
      value: 1.25,
      unit: "ratio",
      blocks: 100,
      supernode_from: "dist",
    });
  });

  it("withholds the ratio of a process that ran the sources through tsx, saying why", () => {
    const line = printed(() => printCostFigure("rss_per_chain_vs_opnode", 3.5, "sources", { value: 3.5 }));
    expect(line.value).toBeNull();
    expect(line.supernode_from).toBe("sources");
    expect(String(line.withheld)).toMatch(/npm run build/);
  });
});

describe("supernodeFrom", () => {
  it("reads the launcher's line about running the sources from the process's log", () => {
    const dir = mkdtempSync(join(tmpdir(), "cost-figure-"));
    dirs.push(dir);
    const bin = readFileSync(join(process.cwd(), "bin", "supernode.js"), "utf8");
    const line = /process\.stderr\.write\("([^"\\]+)\\n"\)/.exec(bin)?.[1];
    expect(line).toBeDefined();
    writeFileSync(join(dir, "sources.log"), `${line}\nINFO supernode started\n`);
    writeFileSync(join(dir, "dist.log"), "INFO supernode started\n");
    expect(supernodeFrom(join(dir, "sources.log"))).toBe("sources");
    expect(supernodeFrom(join(dir, "dist.log"))).toBe("dist");
  });
});
