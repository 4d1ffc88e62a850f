import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { FIXED_YOUNG_GENERATION_FLAG, youngGenerationFlag } from "../../../src/cli/young-generation.js";

describe("youngGenerationFlag", () => {
  it("fixes the young generation unless the operator chose its size", () => {
    expect(youngGenerationFlag([], undefined)).toBe(FIXED_YOUNG_GENERATION_FLAG);
    expect(youngGenerationFlag(["--enable-source-maps"], "--max-old-space-size=512")).toBe(FIXED_YOUNG_GENERATION_FLAG);
    expect(youngGenerationFlag(["--max-semi-space-size=8"], undefined)).toBeUndefined();
    expect(youngGenerationFlag([], "--enable-source-maps --max-semi-space-size=16")).toBeUndefined();
    expect(youngGenerationFlag([], "--max_semi_space_size 16")).toBeUndefined();
    expect(youngGenerationFlag([], "--max-semi-space-sizes=16")).toBe(FIXED_YOUNG_GENERATION_FLAG);
  });
});

const MODULE = pathToFileURL(resolve(process.cwd(), "src", "cli", "young-generation.ts")).href;
// A churn like a verifier's: mostly short-lived objects, a few kept a while (they survive scavenges).
const CHILD = `
import { getHeapSpaceStatistics } from "node:v8";
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
const { fixYoungGeneration } = await import(${JSON.stringify(MODULE)});
const set = fixYoungGeneration();
const before = newSpace();
let kept = [];
for (let i = 0; i < 4_000_000; i++) {
  const o = { n: i, s: "x" + i, a: [i, i + 1] };
  if (i % 10 === 0) kept.push(o);
  if (kept.length > 40_000) kept = [];
}
console.log(JSON.stringify({ set: set ?? null, before, after: newSpace() }));
`;

function child(nodeOptions?: string) {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD], {
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? "", ...(nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions }) },
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { set: string | null; before: number; after: number };
}

describe("fixYoungGeneration (real V8, a child process)", () => {
  it("keeps the new space at its size under churn; an operator's --max-semi-space-size lets it grow", () => {
    const fixed = child();
    expect(fixed.set).toBe(FIXED_YOUNG_GENERATION_FLAG);
    expect(fixed.after).toBeLessThanOrEqual(fixed.before);
    const chosen = child("--max-semi-space-size=16");
    expect(chosen.set).toBeNull();
    expect(chosen.after).toBeGreaterThan(4 * chosen.before);
    expect(chosen.after).toBeGreaterThan(8 * 2 ** 20);
  }, 120_000);
});
