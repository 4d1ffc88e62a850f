import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PprofServer } from "../../../src/observability/pprof.js";

describe("PprofServer", () => {
  let server: PprofServer;
  beforeAll(async () => {
    server = await PprofServer.listen({ addr: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it("serves an index", async () => {
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("/debug/pprof/profile?seconds=N");
  });

  it("records a CPU profile for the requested duration", async () => {
    const t0 = Date.now();
    const res = await fetch(`${server.url}profile?seconds=0.3`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/\.cpuprofile"$/);
    const profile = (await res.json()) as { nodes: unknown[]; startTime: number; endTime: number };
    expect(profile.nodes.length).toBeGreaterThan(0);
    expect(profile.endTime).toBeGreaterThan(profile.startTime);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it("streams a heap snapshot", async () => {
    const ctl = new AbortController();
    const res = await fetch(`${server.url}heap`, { signal: ctl.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value).startsWith('{"snapshot":')).toBe(true);
    ctl.abort();
    await reader.cancel().catch(() => {});
  });

  it("rejects bad durations and unknown paths", async () => {
    expect((await fetch(`${server.url}profile?seconds=0`)).status).toBe(400);
    expect((await fetch(`${server.url}profile?seconds=9999`)).status).toBe(400);
    expect((await fetch(`${server.url}goroutine`)).status).toBe(404);
  });
});
