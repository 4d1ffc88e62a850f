import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import type { Clock } from "../../../src/core/time/clock.js";
import { LruCache } from "../../../src/io/common/lru.js";
import { Semaphore } from "../../../src/io/common/semaphore.js";
import { jwtAuthHeaders, mintJwt, parseJwtSecret, readJwtSecret } from "../../../src/io/engine/jwt.js";

describe("JWT secret and tokens", () => {
  const hex = "ab".repeat(32);

  it("parses 32-byte hex with or without 0x and whitespace; rejects anything else", async () => {
    expect(parseJwtSecret(`  0x${hex}\n`)).toEqual(new Uint8Array(32).fill(0xab));
    expect(parseJwtSecret(hex)).toEqual(new Uint8Array(32).fill(0xab));
    expect(() => parseJwtSecret("0x1234")).toThrow(/32 bytes/);
    expect(() => parseJwtSecret(`0x${"zz".repeat(32)}`)).toThrow(/32 bytes/);
    const dir = mkdtempSync(join(tmpdir(), "jwt-"));
    try {
      writeFileSync(join(dir, "jwt.hex"), `0x${hex}\n`);
      expect(await readJwtSecret(join(dir, "jwt.hex"))).toEqual(new Uint8Array(32).fill(0xab));
      await expect(readJwtSecret(join(dir, "missing.hex"))).rejects.toMatchObject({ code: "JWT_SECRET" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("mints HS256 tokens with only iat, fresh per request from the injected clock", async () => {
    const secret = new Uint8Array(32).fill(9);
    const token = await mintJwt(secret, 1_700_000_000);
    expect(decodeProtectedHeader(token).alg).toBe("HS256");
    expect(decodeJwt(token)).toEqual({ iat: 1_700_000_000 });
    await expect(jwtVerify(token, secret, { currentDate: new Date(1_700_000_000_000) })).resolves.toBeDefined();
    let now = 1_700_000_000_000;
    const clock: Clock = { nowMs: () => now, sleep: async () => {} };
    const headers = jwtAuthHeaders(secret, clock);
    const a = (await headers()).authorization as string;
    now += 5_000;
    const b = (await headers()).authorization as string;
    expect(a.startsWith("Bearer ")).toBe(true);
    expect(decodeJwt(b.slice(7)).iat).toBe((decodeJwt(a.slice(7)).iat as number) + 5);
  });
});

describe("LruCache and Semaphore", () => {
  it("evicts the least recently used entry", () => {
    const c = new LruCache<string, number>(2);
    c.set("a", 1);
    c.set("b", 2);
    expect(c.get("a")).toBe(1);
    c.set("c", 3);
    expect(c.get("b")).toBeUndefined();
    expect(c.get("a")).toBe(1);
    expect(c.size).toBe(2);
  });

  it("bounds concurrency and serves waiters in order", async () => {
    const s = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        s.run(async () => {
          active++;
          peak = Math.max(peak, active);
          order.push(i);
          await new Promise((r) => setTimeout(r, 5));
          active--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    const ctl = new AbortController();
    const blockers = [
      s.run(() => new Promise((r) => setTimeout(r, 30))),
      s.run(() => new Promise((r) => setTimeout(r, 30))),
    ];
    const waiting = s.run(async () => 1, ctl.signal);
    ctl.abort();
    await expect(waiting).rejects.toMatchObject({ code: "ABORTED" });
    await Promise.all(blockers);
    expect(s.inFlight).toBe(0);
  });
});
