import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../../../src/core/time/clock.js";
import { identifyEngine } from "../../../../src/io/engine/engine-identity.js";
import { HttpRpcClient } from "../../../../src/io/json-rpc/http-client.js";
import { recordingLogger } from "../../node/fakes.js";

/** A loopback port nothing listens on (bound, then closed). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe("identifyEngine", () => {
  it("does not claim an execution client that was never reached was identified", async () => {
    const logger = recordingLogger();
    const rpc = new HttpRpcClient({ url: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 2_000 });
    const id = await identifyEngine(rpc, "variant_a", { clock: systemClock, logger });
    expect(id).toMatchObject({ clientVersion: undefined, detectedKind: undefined });
    const messages = logger.lines.map((l) => l.msg);
    expect(messages).not.toContain("execution client identified");
    expect(messages).toContain("execution client not reached; not identified");
  });
});
