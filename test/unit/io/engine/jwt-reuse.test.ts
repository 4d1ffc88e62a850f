import { decodeJwt, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import type { Clock } from "../../../../src/core/time/clock.js";
import { jwtAuthHeaders, mintJwt, mintJwtSync } from "../../../../src/io/engine/jwt.js";

describe("Engine API token reuse", () => {
  const secret = new Uint8Array(32).fill(5);

  it("signs tokens jose verifies, identical to a fresh mint for the same iat", async () => {
    const t = mintJwtSync(secret, 1_700_000_123);
    expect(await mintJwt(secret, 1_700_000_123)).toBe(t);
    const { payload } = await jwtVerify(t, secret, { currentDate: new Date(1_700_000_123_000) });
    expect(payload).toEqual({ iat: 1_700_000_123 });
    await expect(jwtVerify(t, new Uint8Array(32).fill(6))).rejects.toThrow();
  });

  it("reuses the token within a second and mints a new one when the second changes", async () => {
    let now = 1_700_000_000_100;
    const clock: Clock = { nowMs: () => now, sleep: async () => {} };
    const headers = jwtAuthHeaders(secret, clock);
    const a = (await headers()).authorization;
    now += 800; // same second
    const b = (await headers()).authorization;
    expect(b).toBe(a);
    now += 200; // next second
    const c = (await headers()).authorization as string;
    expect(c).not.toBe(a);
    expect(decodeJwt(c.slice(7)).iat).toBe(1_700_000_001);
    expect(c).toBe(`Bearer ${mintJwtSync(secret, 1_700_000_001)}`);
    // Within the second the very same object comes back (the transport reuses its header lines), and it is
    // frozen: a caller cannot poison the cache.
    const d = await headers();
    expect(await headers()).toBe(d);
    expect(Object.isFrozen(d)).toBe(true);
    expect(() => {
      (d as Record<string, string>).authorization = "Bearer x";
    }).toThrow(TypeError);
    expect((await headers()).authorization).toBe(c);
  });

  it("rejects a secret that is not 32 bytes", () => {
    const clock: Clock = { nowMs: () => 0, sleep: async () => {} };
    expect(() => jwtAuthHeaders(new Uint8Array(16), clock)).toThrow(/32 bytes/);
  });
});
