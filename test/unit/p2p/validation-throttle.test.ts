import { afterEach, describe, expect, it, vi } from "vitest";
import { type DropReason, ValidationThrottle, type Verdict } from "../../../src/p2p/validation-throttle.js";

/** op-node's validator wrapper: per-topic concurrency 4, 3 s timeout (IGNORE), a throw REJECTs. */
describe("ValidationThrottle", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("passes synchronous verdicts through and never counts them as running", () => {
    const t = new ValidationThrottle();
    for (const v of ["accept", "ignore", "reject"] as const) expect(t.run(() => v)).toBe(v);
    expect(t.running).toBe(0);
  });

  it("rejects when the validator throws, synchronously or asynchronously", async () => {
    const drops: DropReason[] = [];
    const t = new ValidationThrottle((r) => drops.push(r));
    expect(
      t.run(() => {
        throw new Error("boom");
      }),
    ).toBe("reject");
    expect(await t.run(() => Promise.reject(new Error("late boom")))).toBe("reject");
    expect(drops).toEqual(["threw", "threw"]);
    expect(t.running).toBe(0);
  });

  it("ignores a fifth message while four validations of the topic run, and takes new ones once they finish", async () => {
    const drops: DropReason[] = [];
    const t = new ValidationThrottle((r) => drops.push(r));
    const release: ((v: Verdict) => void)[] = [];
    const pending = Array.from({ length: 4 }, () =>
      t.run(() => new Promise<Verdict>((resolve) => release.push(resolve))),
    );
    expect(t.running).toBe(4);
    expect(t.run(() => "accept")).toBe("ignore");
    expect(drops).toEqual(["throttled"]);
    for (const r of release) r("accept");
    expect(await Promise.all(pending)).toEqual(["accept", "accept", "accept", "accept"]);
    expect(t.running).toBe(0);
    expect(t.run(() => "accept")).toBe("accept");
  });

  it("ignores a validation still running after 3 s and frees its slot", async () => {
    vi.useFakeTimers();
    const drops: DropReason[] = [];
    const t = new ValidationThrottle((r) => drops.push(r));
    let late: ((v: Verdict) => void) | undefined;
    const out = t.run(() => new Promise<Verdict>((resolve) => (late = resolve)));
    await vi.advanceTimersByTimeAsync(2_999);
    expect(t.running).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await out).toBe("ignore");
    expect(drops).toEqual(["timeout"]);
    expect(t.running).toBe(0);
    late?.("accept"); // a verdict after the timeout changes nothing
    expect(t.running).toBe(0);
  });
});
