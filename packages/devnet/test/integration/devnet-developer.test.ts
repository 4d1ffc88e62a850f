import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { JsonRpcProvider, type Log as EthersLog, Wallet } from "ethers";
import { createPublicClient, defineChain, type Hex, webSocket } from "viem";
import { generatePrivateKey } from "viem/accounts";
import { chainConfig } from "viem/op-stack";
import { describe, expect, it } from "vitest";
import { devnetBin } from "../../src/bin-path.js";
import { developerScript } from "../support/developer-script.js";
import { MESSAGE_PASSER, withdrawalCalldata, firstEvent } from "../support/el-support.js";

/**
 * The devnet as `npm start` runs it (the supernode sequencing), seen from an application: the banner names each
 * chain's execution client with its WebSocket URL and the dev accounts with their keys; on both variants a viem
 * WebSocket newHeads subscription sees the supernode's blocks, ethers sees a dev account's log through an HTTP
 * filter, an unfunded account's transaction is refused at once, and the docs' viem script (deploy, events, total fee,
 * write, read: test/support/developer-script.ts) runs unchanged against each chain.
 */
interface Endpoints {
  readonly http: string;
  readonly ws: string;
}

async function asDeveloper(chainId: number, el: Endpoints, key: Hex): Promise<void> {
  const chain = defineChain({
    ...chainConfig,
    id: chainId,
    name: `devnet ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [el.http], webSocket: [el.ws] } },
  });
  const ws = createPublicClient({ chain, transport: webSocket() });
  const provider = new JsonRpcProvider(el.http, chainId, { staticNetwork: true, pollingInterval: 100 });
  const unwatch: (() => void)[] = [];
  try {
    const head = await firstEvent<{ number: bigint | null }>((cb) => unwatch.push(ws.watchBlocks({ onBlock: cb })));
    expect(head.number).toBeGreaterThan(0n);
    const wallet = new Wallet(key, provider);
    const log = firstEvent<EthersLog>((cb) => void provider.on({ address: MESSAGE_PASSER }, cb));
    // the filter is installed with the subscriber's first block
    await firstEvent<number>((cb) => void provider.once("block", cb));
    const tx = await wallet.sendTransaction({ to: MESSAGE_PASSER, data: withdrawalCalldata(wallet.address as Hex) });
    expect((await log).transactionHash).toBe(tx.hash);
    const refused = await new Wallet(generatePrivateKey(), provider)
      .sendTransaction({ to: wallet.address, value: 1n, gasLimit: 21_000n })
      .catch((e: unknown) => e);
    expect((refused as { code?: string }).code).toBe("INSUFFICIENT_FUNDS");
    expect(String((refused as Error).message)).toContain("insufficient funds for gas * price + value");
  } finally {
    for (const u of unwatch) u();
    provider.destroy();
    await (await ws.transport.getRpcClient()).close();
  }
}

describe("supernode-devnet as an application developer meets it", () => {
  it("WebSocket and dev accounts in the banner; subscriptions, filters, pool refusals and the docs script on both variants", async () => {
    const child = spawn(
      process.execPath,
      [devnetBin(), "--rpc.port", "0", "--metrics.port", "0", "--el.port", "0", "--l1-block-time", "1"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const lines: string[] = [];
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const els = new Map<number, Endpoints>();
    const keys: Hex[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out:\n${lines.join("\n")}\n${stderr}`)), 90_000);
        createInterface({ input: child.stdout }).on("line", (line) => {
          lines.push(line);
          const el = /^chain (\d+) execution client\s+(http:\S+)\s+WebSocket (ws:\S+)$/.exec(line);
          if (el !== null) els.set(Number(el[1]), { http: el[2]!, ws: el[3]! });
          const acct = /^ {2}#\d+ 0x[0-9a-f]{40} {2}key (0x[0-9a-f]{64})$/.exec(line);
          if (acct !== null) keys.push(acct[1] as Hex);
          if (line.startsWith("chain 902 [running]")) {
            clearTimeout(timer);
            resolve();
          }
        });
        void exited.then(() => reject(new Error(`exited early:\n${lines.join("\n")}\n${stderr}`)));
      });
      expect([...els.keys()]).toEqual([901, 902]);
      expect(keys).toHaveLength(10);
      // dev accounts #3 and #4: the devnet itself sends from none of them
      // and the docs' viem script (deploy, watch events, estimate the total fee, write, read) on both, from #5 and #6
      await Promise.all([
        asDeveloper(901, els.get(901)!, keys[3]!),
        asDeveloper(902, els.get(902)!, keys[4]!),
        developerScript({ chainId: 901, ...els.get(901)!, key: keys[5]! }),
        developerScript({ chainId: 902, ...els.get(902)!, key: keys[6]! }),
      ]);
      child.kill("SIGINT");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 150_000);
});
