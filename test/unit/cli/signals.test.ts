import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { installSignalHandlers } from "../../../src/cli/signals.js";

describe("installSignalHandlers", () => {
  it("first signal aborts gracefully, second forces exit 130 (SIGINT) / 143 (SIGTERM)", () => {
    for (const [sig, code] of [
      ["SIGINT", 130],
      ["SIGTERM", 143],
    ] as const) {
      const proc = new EventEmitter();
      const exits: number[] = [];
      const seen: string[] = [];
      const ctl = new AbortController();
      const remove = installSignalHandlers(ctl, {
        proc: proc as unknown as Pick<NodeJS.Process, "on" | "off">,
        exit: (c) => exits.push(c),
        onFirst: (s) => seen.push(`first:${s}`),
        onForce: (s) => seen.push(`force:${s}`),
      });
      proc.emit(sig, sig);
      expect(ctl.signal.aborted).toBe(true);
      expect(exits).toEqual([]);
      proc.emit(sig, sig);
      expect(exits).toEqual([code]);
      expect(seen).toEqual([`first:${sig}`, `force:${sig}`]);
      remove();
      expect(proc.listenerCount("SIGINT") + proc.listenerCount("SIGTERM")).toBe(0);
    }
  });
});
