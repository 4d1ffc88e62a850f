/**
 * A sequencing supernode (devnet: anvil L1, simulated execution client, 1 s blocks) whose blocks are signed by a
 * remote signer (`--vn.all.signer.*`, plain HTTP, a header), and a peer host following its gossip. The peer accepts
 * the blocks (checked against the unsafe-block signer on L1). When the signer goes down the chain keeps sequencing,
 * its blocks are not gossiped and `supernode_p2p_block_signing_failures_total{reason="unavailable"}` counts them;
 * when it is back, gossip resumes.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { loopbackAddr, waitForP2PSelf } from "supernode-devnet/cli/p2p";
import { type DevnetSupernode, startDevnetSupernode } from "supernode-devnet";
import { silentLogger } from "../../../src/core/logger.js";
import { call, waitFor } from "../../support/devnet-rpc.js";
import { startTestSigner, type TestSignerServer } from "../../support/remote-signer-server.js";
import { P2PRig, type RigHost } from "./rig.js";

const KEY: Hex = `0x${"5e".repeat(32)}`;
const ADDR = privateKeyToAddress(KEY);

const rig = new P2PRig();
let dir: string | undefined;
let sn: DevnetSupernode | undefined;
const servers: TestSignerServer[] = [];
afterAll(async () => {
  await rig.closeAll();
  await sn?.stop();
  await Promise.allSettled(servers.map((s) => s.close()));
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function failures(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text
    .split("\n")
    .find((l) => l.startsWith('supernode_p2p_block_signing_failures_total{chain_id="901",reason="unavailable"}'));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
}

describe("sequencing with a remote signer (devnet)", () => {
  it("gossips remotely signed blocks; a signer that is down stops gossip, not the chain", async () => {
    const signer = await startTestSigner({ key: KEY });
    servers.push(signer);
    dir = mkdtempSync(join(tmpdir(), "sn-remote-signer-"));
    sn = await startDevnetSupernode(
      {
        dir,
        chains: [{ chainId: 901n, variant: "b" }],
        rpcPort: 0,
        metricsPort: 0,
        l1BlockTimeSec: 1,
        l2BlockTimeSec: 1,
        p2p: true,
        remoteSigner: ADDR,
        extraArgs: [
          "--vn.all.signer.endpoint",
          signer.url,
          "--vn.all.signer.address",
          ADDR,
          "--vn.all.signer.tls.enabled=false",
          "--vn.all.signer.header",
          "Authorization=Bearer devnet",
        ],
      },
      { logger: silentLogger },
    );
    const rpc = sn.supernode.rpc.url;
    const metrics = sn.supernode.metricsServer?.url as string;
    const self = await waitForP2PSelf(rpc, 901n, AbortSignal.timeout(60_000));
    const follower: RigHost = await rig.host(901n, {
      signer: () => ADDR.toLowerCase() as `0x${string}`,
      rollup: sn.devnet.chain(901n).rollupConfig,
    });
    await follower.p2p.connect(loopbackAddr(self));
    const numbers = () => follower.received.map((r) => r.env.executionPayload.blockNumber);
    const unsafe = async () =>
      ((await call(`${rpc}/901/`, "stack_syncStatus")).result as { unsafe_l2: { number: number } }).unsafe_l2.number;

    await waitFor("two gossiped blocks", async () => (numbers().length >= 2 ? true : undefined), 60_000);
    const signed = signer.requests.filter((r) => r.method === "opsigner_signBlockPayload");
    expect(signed.length).toBeGreaterThanOrEqual(2);
    expect(signed[0]?.headers.authorization).toBe("Bearer devnet");

    // The signer goes down: the chain keeps sequencing, its blocks are not gossiped.
    const port = Number(new URL(signer.url).port);
    await signer.close();
    const downAt = await unsafe();
    const lastBefore = Math.max(...numbers());
    await waitFor("blocks sequenced while the signer is down", async () =>
      (await unsafe()) >= downAt + 3 && (await failures(metrics)) >= 2 ? true : undefined,
    );
    const lost = await unsafe();

    // Back again: the next blocks are gossiped.
    servers.push(await startTestSigner({ key: KEY, port }));
    await waitFor("gossip after the signer is back", async () => (Math.max(...numbers()) > lost ? true : undefined));
    // Blocks signed while the signer was down never went out.
    const missing = [];
    for (let n = lastBefore + 1; n <= lost; n++) if (!numbers().includes(n)) missing.push(n);
    expect(missing.length).toBeGreaterThanOrEqual(2);
  }, 180_000);
});
