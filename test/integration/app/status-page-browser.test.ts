/**
 * `GET /status` in a real headless Chromium (Debian's `chromium`, driven by playwright-core, which never downloads a
 * browser) against a supernode on the devnet with the admin namespace off: both chains appear with their state, the
 * head numbers move between refreshes, the page loads nothing from anywhere but the supernode, and a screenshot is
 * written outside the repository (its path is printed). On the same devnet, the README's super-root example runs as
 * written (bash and curl, the RPC address swapped for this test's port).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildChainRuntimes } from "../../../src/app/chain-factory.js";
import { protocolHashing } from "../../../src/app/hashing.js";
import { Supernode } from "../../../src/app/supernode.js";
import { type Devnet, supernodeArgsFor } from "supernode-devnet";
import { loadConfig } from "../../../src/config/load.js";
import { silentLogger } from "../../../src/core/logger.js";
import { startTwoChainDevnet } from "../../support/two-chain-devnet.js";
import { describeWithTools } from "../../support/system-tools.js";

/** Flags that keep Chromium headless, sandbox-free (root in CI) and off the network (the fresh profile directory is
 * passed by playwright as --user-data-dir). */
function chromiumArgs(): string[] {
  return [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ];
}

describeWithTools(["chromium"], "status page in headless Chromium", (tools) => {
  let dir: string;
  let devnet: Devnet | undefined;
  let sn: Supernode | undefined;
  let browser: BrowserContext | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sn-status-"));
    devnet = await startTwoChainDevnet(dir);
    const args = supernodeArgsFor(devnet, { dir, chains: [], rpcPort: 0, metricsPort: 0 }).filter(
      (a) => a !== "--rpc.enable-admin",
    );
    const loaded = loadConfig([...args, "--l1.http-poll-interval", "250ms"], {});
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
    expect(loaded.config.rpc.enableAdmin).toBe(false);
    sn = await Supernode.start(loaded.config, {
      logger: silentLogger,
      buildChains: buildChainRuntimes,
      hashing: protocolHashing,
    });
    devnet.startBatchers();
    // The system binary is the only browser used (playwright-core has none of its own).
    browser = await chromium.launchPersistentContext(join(dir, "chromium-profile"), {
      executablePath: tools.chromium as string,
      args: chromiumArgs(),
      headless: true,
      chromiumSandbox: false,
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close(); // ends the Chromium process it started
    await sn?.stop();
    await devnet?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("shows both chains with state and moving heads, from the supernode only", async () => {
    const base = sn!.rpc.url;
    const page = await browser!.newPage();
    await page.setViewportSize({ width: 1400, height: 600 });
    const foreign: string[] = [];
    page.on("request", (req) => {
      if (!req.url().startsWith(`${base}/`)) foreign.push(req.url());
    });
    const res = await page.goto(`${base}/status?refresh=500`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-type"]).toContain("text/html");
    expect(res?.headers()["content-security-policy"]).toContain("default-src 'none'");

    const field = (chain: string, f: string) =>
      page.locator(`tr[data-chain="${chain}"] td[data-field="${f}"]`).textContent({ timeout: 30_000 });
    // Both chains appear, running, with their heads.
    await page.waitForSelector('tr[data-chain="901"] td.state.running', { timeout: 60_000 });
    await page.waitForSelector('tr[data-chain="902"] td.state.running', { timeout: 60_000 });
    const first = { a: Number(await field("901", "unsafe")), b: Number(await field("902", "unsafe")) };
    // The page refreshes itself: the numbers move without a reload.
    // (Read from the test side: the page's CSP forbids the string evaluation an in-page predicate would need.)
    const num = async (c: string, f: string) => Number(await field(c, f));
    const poll = { timeout: 60_000, interval: 250 };
    await expect.poll(async () => (await num("901", "unsafe")) > first.a, poll).toBe(true);
    await expect.poll(async () => (await num("902", "unsafe")) > first.b, poll).toBe(true);
    // Safe heads arrive too (the batchers post, the nodes derive).
    await expect.poll(async () => (await num("901", "safe")) > 0 && (await num("902", "safe")) > 0, poll).toBe(true);
    expect(Number(await page.locator("#l1-head").textContent())).toBeGreaterThan(0);
    expect(await page.locator("#ready").textContent()).toBe("ready");
    expect(await field("901", "peers")).toBe("off"); // --disable-p2p on the devnet
    expect(Number(await page.locator("body").getAttribute("data-updates"))).toBeGreaterThan(1);
    expect(await page.locator("#error").textContent()).toBe("");
    expect(foreign).toEqual([]);

    const shot = join(tmpdir(), "supernode-status.png"); // outside the repository, kept after the test
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(1000);
    console.log(`status page screenshot: ${shot}`);
  }, 120_000);

  it("the README's superroot_atTimestamp example works as written", async () => {
    const readme = readFileSync(join(import.meta.dirname, "../../../README.md"), "utf8");
    const block = /```sh\n(J='content-type[\s\S]*?)```/.exec(readme)?.[1];
    expect(block, "README's Try-it block").toBeDefined();
    // The J= line, then the super-root example: from its comment to its curl line.
    const lines = block!.split("\n");
    const from = lines.findIndex((l) => l.startsWith("# the super root"));
    const to = lines.findIndex((l, i) => i > from && l.startsWith("curl") && l.includes("superroot_atTimestamp"));
    expect(from).toBeGreaterThan(0);
    const script = [lines[0], ...lines.slice(from, to + 1)].join("\n").replaceAll("http://127.0.0.1:8545", sn!.rpc.url);
    const { stdout } = await promisify(execFile)("bash", ["-c", `set -euo pipefail\n${script}`], {
      env: { PATH: process.env.PATH ?? "" },
    });
    const reply = JSON.parse(stdout) as { result?: { data?: { super_root?: string } }; error?: unknown };
    expect(reply.error).toBeUndefined();
    expect(reply.result?.data?.super_root).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
