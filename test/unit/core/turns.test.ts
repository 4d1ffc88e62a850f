import { describe, expect, it } from "vitest";
import { FairTurns } from "../../../src/core/async/turns.js";

/** A manual event loop: `later` callbacks run only when the test calls `iterate()`; time moves only by `spend`. */
function rig(budgetMs = 2) {
  let now = 0;
  let queue: Array<() => void> = [];
  const turns = new FairTurns({ budgetMs, now: () => now, later: (fn) => queue.push(fn) });
  return {
    turns,
    spend(ms: number) {
      now += ms;
    },
    async iterate() {
      const run = queue;
      queue = [];
      for (const fn of run) fn();
      // let resumed callers run to their next await
      for (let i = 0; i < 20; i++) await Promise.resolve();
    },
  };
}

describe("FairTurns", () => {
  it("lets callers go on at once while the iteration has budget, and queues them past it", async () => {
    const r = rig(2);
    expect(r.turns.take()).toBeUndefined();
    r.spend(1);
    expect(r.turns.take()).toBeUndefined();
    r.spend(1.5);
    const waiting = r.turns.take();
    expect(waiting).toBeInstanceOf(Promise);
    // a later caller queues behind the first even if it would fit
    expect(r.turns.take()).toBeInstanceOf(Promise);
    expect(r.turns.deferred).toBe(2);
  });

  it("resumes waiters first come first served, at most one budget of work per iteration", async () => {
    const r = rig(2);
    r.spend(5);
    const order: string[] = [];
    const chain = async (name: string, cost: number) => {
      const t = r.turns.take();
      if (t !== undefined) await t;
      order.push(name);
      r.spend(cost);
    };
    const all = Promise.all([chain("a", 1.5), chain("b", 1.5), chain("c", 0.5), chain("d", 0.5)]);
    expect(order).toEqual([]);
    await r.iterate(); // new turn: a (1.5 ms) fits, then b starts (1.5 < 2) and brings the turn to 3 ms
    expect(order).toEqual(["a", "b"]);
    await r.iterate(); // next turn: c and d
    expect(order).toEqual(["a", "b", "c", "d"]);
    await all;
    // with the queue drained, a caller in a fresh iteration goes on at once
    await r.iterate();
    expect(r.turns.take()).toBeUndefined();
  });
});

describe("FairTurns lanes", () => {
  it("serves an urgent lane's callers before the other lanes' queued work, one budget per iteration", async () => {
    const r = rig(2);
    const [a, b, u] = [r.turns.lane(), r.turns.lane(), r.turns.lane()];
    r.spend(5);
    const order: string[] = [];
    const work = async (lane: ReturnType<typeof r.turns.lane>, name: string, cost: number) => {
      const t = lane.take();
      if (t !== undefined) await t;
      order.push(name);
      r.spend(cost);
    };
    const queued = [work(a, "a1", 1.5), work(b, "b1", 1.5), work(a, "a2", 1.5)];
    u.setUrgent?.(true);
    queued.push(work(u, "u1", 1), work(u, "u2", 1.5));
    u.setUrgent?.(false);
    queued.push(work(u, "u3", 0.5)); // no longer urgent: behind the others
    await r.iterate(); // u1 (1 ms) and u2 start this turn (1 < 2) ahead of a1, b1, a2 queued before them
    expect(order).toEqual(["u1", "u2"]);
    await r.iterate();
    expect(order).toEqual(["u1", "u2", "a1", "b1"]);
    await r.iterate();
    expect(order).toEqual(["u1", "u2", "a1", "b1", "a2", "u3"]);
    await Promise.all(queued);
  });

  it("lets an urgent caller go on at once while the iteration has budget and nothing waits", () => {
    const r = rig(2);
    const u = r.turns.lane();
    u.setUrgent?.(true);
    expect(u.take()).toBeUndefined();
    r.spend(3);
    expect(u.take()).toBeInstanceOf(Promise);
  });
});
