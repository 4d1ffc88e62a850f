import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

// The preload third-party test peers run with (test/support/loopback-only.mjs): placeholder ports become ports the
// kernel picks, reported on stderr, so a test never hands a peer a port that was free a moment ago.
const preload = resolve(process.cwd(), "test/support/loopback-only.mjs");
const children: ChildProcess[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Runs `script` with the preload; resolves with its stderr once `done` matches it. */
function run(script: string, env: Record<string, string>, done: RegExp): Promise<string> {
  const child = spawn(process.execPath, ["--import", preload, "-e", script], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env },
  });
  children.push(child);
  return new Promise((res, rej) => {
    let err = "";
    child.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
      if (done.test(err)) res(err);
    });
    child.once("exit", (code) => rej(new Error(`exited (${code}) early: ${err}`)));
  });
}

describe("loopback-only preload", () => {
  it("binds a placeholder port to a port the kernel picks, on 127.0.0.1, and reports it", async () => {
    // the placeholder is taken by someone else: the peer must not need it
    const squatter = createServer();
    servers.push(squatter);
    await new Promise<void>((r) => squatter.listen(0, "127.0.0.1", () => r()));
    const placeholder = (squatter.address() as { port: number }).port;
    const script = `
      const net = require("node:net");
      const dgram = require("node:dgram");
      const s = net.createServer();
      s.on("error", (e) => { process.stderr.write("error " + e.code + "\\n"); });
      s.listen(${placeholder}, "0.0.0.0", () => process.stderr.write("tcp host " + s.address().address + "\\n"));
      const u = dgram.createSocket("udp4");
      u.bind(${placeholder}, () => process.stderr.write("udp host " + u.address().address + "\\n"));
      setInterval(() => {}, 1000);
    `;
    const err = await run(
      script,
      { LOOPBACK_ANY_PORTS: `1,${placeholder}` },
      /tcp host [^\n]*\n[\s\S]*udp host [^\n]*\n|udp host [^\n]*\n[\s\S]*tcp host [^\n]*\n/,
    );
    expect(err).not.toContain("error");
    expect(err).toContain("tcp host 127.0.0.1");
    expect(err).toContain("udp host 127.0.0.1");
    const tcp = Number(new RegExp(`loopback-only: port ${placeholder} bound (\\d+)`).exec(err)?.[1]);
    const udp = Number(new RegExp(`loopback-only: udp port ${placeholder} bound (\\d+)`).exec(err)?.[1]);
    expect(tcp).toBeGreaterThan(0);
    expect(tcp).not.toBe(placeholder);
    expect(udp).toBeGreaterThan(0);
  });

  it("reports nothing for a port that is not a placeholder", async () => {
    const script = `
      const s = require("node:net").createServer();
      s.listen(0, () => process.stderr.write("bound " + s.address().address + "\\n"));
      setInterval(() => {}, 1000);
    `;
    const err = await run(script, { LOOPBACK_ANY_PORTS: "1" }, /bound \S+\n/);
    expect(err).toContain("bound 127.0.0.1");
    expect(err).not.toContain("loopback-only:");
  });
});
