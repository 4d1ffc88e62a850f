import { type AddressInfo, createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { ANY_PORTS, DEFAULT_EL_PORT_BASE, elPorts, startOnPorts } from "../../src/el-ports.js";

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(port, "127.0.0.1", () => resolve(s));
  });
}

const close = (s: Server) => new Promise<void>((r) => s.close(() => r()));

describe("execution-client ports of the devnet", () => {
  it("chain 901 on base+10/11/12, chain 902 on base+20/21/22; base 0 = any free port", () => {
    expect(elPorts(DEFAULT_EL_PORT_BASE, 0)).toEqual({ http: 9010, ws: 9011, auth: 9012 });
    expect(elPorts(DEFAULT_EL_PORT_BASE, 1)).toEqual({ http: 9020, ws: 9021, auth: 9022 });
    expect(elPorts(0, 5)).toBe(ANY_PORTS);
    expect(() => elPorts(65_000, 60)).toThrow(/leaves no ports/);
  });

  it("a taken port falls back to free ports and says so; other errors pass through", async () => {
    const taken = await listen(0);
    const port = (taken.address() as AddressInfo).port;
    const busy: string[] = [];
    try {
      const got = await startOnPorts(
        { http: port, ws: 0, auth: 0 },
        (p) => listen(p.http),
        (e) => busy.push(e.message),
      );
      expect((got.address() as AddressInfo).port).not.toBe(port);
      expect(busy).toHaveLength(1);
      await close(got);
      const boom = startOnPorts(
        { http: port + 1, ws: 0, auth: 0 },
        () => Promise.reject(new Error("boom")),
        () => {},
      );
      await expect(boom).rejects.toThrow("boom");
    } finally {
      await close(taken);
    }
  });
});
