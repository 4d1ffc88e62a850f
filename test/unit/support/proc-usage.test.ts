import { describe, expect, it } from "vitest";
import { procUsage } from "../../support/proc-usage.js";

describe.skipIf(process.platform !== "linux")("procUsage (this process's /proc)", () => {
  it("reads CPU time and RSS with its anonymous and file-backed parts", () => {
    const u = procUsage(process.pid);
    expect(u).toBeDefined();
    if (u === undefined) return;
    expect(u.cpuS).toBeGreaterThan(0);
    expect(u.rssAnonMb).toBeGreaterThan(1);
    expect(u.rssFileMb).toBeGreaterThan(1);
    // VmRSS = RssAnon + RssFile + RssShmem, read at one moment
    expect(Math.abs(u.rssMb - u.rssAnonMb - u.rssFileMb)).toBeLessThan(1);
    expect(procUsage(2 ** 22 + 1)).toBeUndefined();
  });
});
