/**
 * The derivation bench's floor control (bench/derivation/floor.ts): a client process and a peer process on
 * loopback exchange exactly the sizes of a built block's request and response, and the peer's busy time is spent.
 */
import { describe, expect, it } from "vitest";
import { startFloorControl } from "../../../bench/derivation/floor.js";

describe("derivation bench floor control", () => {
  it("exchanges exactly the block's bytes, any size, and counts the client's CPU", async () => {
    for (const sizes of [
      { requestBytes: 24_812.4, responseBytes: 13_251 },
      { requestBytes: 120, responseBytes: 100 },
      { requestBytes: 100_000, responseBytes: 99_999 },
    ]) {
      const floor = await startFloorControl({ ...sizes, elBusyUs: 0 });
      try {
        // run() throws unless the client sent and received exactly trips × the sizes.
        expect(await floor.run(25)).toBeGreaterThan(0);
        expect(await floor.run(3)).toBeGreaterThanOrEqual(0);
      } finally {
        await floor.stop();
      }
    }
  });

  it("waits for the peer's busy time on every round trip", async () => {
    const floor = await startFloorControl({ requestBytes: 2_000, responseBytes: 1_000, elBusyUs: 5_000 });
    try {
      const t0 = performance.now();
      await floor.run(5);
      // Five answers, each after 5 ms of the peer's CPU (a lower bound: the peer cannot answer sooner).
      expect(performance.now() - t0).toBeGreaterThanOrEqual(5 * 5);
    } finally {
      await floor.stop();
    }
  });

  it("refuses sizes no HTTP message can have", async () => {
    await expect(
      startFloorControl({ requestBytes: 2_000, responseBytes: 10, elBusyUs: 0 }).then((f) => f.run(1)),
    ).rejects.toThrow();
  });
});
