import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { devnetBin } from "supernode-devnet";
import { describe, expect, it } from "vitest";

/**
 * `supernode-devnet --followers 1` end to end, on loopback: a sequencing supernode and a follower supernode (its own
 * process, execution client and data dir) peered over P2P. The follower's unsafe head keeps within two blocks of the
 * sequencer's by gossip while its safe head (from L1 batches) lags behind, its blocks are the sequencer's by hash,
 * and `stackp2p_self` / `stackp2p_peers` answer with the specification's shapes. SIGINT stops every process.
 */
const BIN = devnetBin();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function rpc<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

type Head = { number: number; hash: string };
type SyncStatus = { unsafe_l2: Head; safe_l2: Head };

const PEER_INFO_KEYS = [
  "peerID",
  "nodeID",
  "userAgent",
  "protocolVersion",
  "ENR",
  "addresses",
  "protocols",
  "connectedness",
  "direction",
  "protected",
  "chainID",
  "latency",
  "gossipBlocks",
  "scores",
].sort();

function expectPeerInfoShape(p: Record<string, unknown>): void {
  expect(Object.keys(p).sort()).toEqual(PEER_INFO_KEYS);
  for (const k of ["peerID", "nodeID", "userAgent", "protocolVersion", "ENR"]) expect(typeof p[k]).toBe("string");
  expect(Array.isArray(p.addresses)).toBe(true);
  for (const a of p.addresses as unknown[]) expect(a).toMatch(/^\//);
  expect(p.protocols === null || Array.isArray(p.protocols)).toBe(true);
  for (const k of ["connectedness", "direction", "chainID", "latency"]) expect(Number.isInteger(p[k])).toBe(true);
  expect(typeof p.protected).toBe("boolean");
  expect(typeof p.gossipBlocks).toBe("boolean");
  const scores = p.scores as { gossip: Record<string, unknown>; reqResp: Record<string, unknown> };
  expect(Object.keys(scores.gossip).sort()).toEqual(["IPColocationFactor", "behavioralPenalty", "blocks", "total"]);
  expect(Object.keys(scores.gossip.blocks as object).sort()).toEqual([
    "firstMessageDeliveries",
    "invalidMessageDeliveries",
    "meshMessageDeliveries",
    "timeInMesh",
  ]);
  expect(Object.keys(scores.reqResp).sort()).toEqual(["errorResponses", "rejectedPayloads", "validResponses"]);
}

describe("supernode-devnet --followers 1", () => {
  it("a follower gets the sequencer's unsafe blocks by gossip long before their batches", async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        "--chains",
        "1",
        "--followers",
        "1",
        "--rpc.port",
        "0",
        "--metrics.port",
        "0",
        "--el.port",
        "0",
        "--l1-block-time",
        "2",
        "--l2-block-time",
        "1",
      ],
      // its own process group, so that the finally below can end the command and its anvil together
      { stdio: ["ignore", "pipe", "pipe"], detached: true },
    );
    const lines: string[] = [];
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let followerPid: number | undefined;
    try {
      const banner = await new Promise<{
        seqRpc: string;
        seqEl: string;
        folRpc: string;
        folMetrics: string;
        folPeer: string;
        folEl: string;
      }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out:\n${lines.join("\n")}\n${stderr}`)), 90_000);
        let seqRpc = "";
        let seqEl = "";
        let folRpc = "";
        let folMetrics = "";
        createInterface({ input: child.stdout }).on("line", (line) => {
          lines.push(line);
          const seq = /^chain 901 \(variant a\) rollup RPC (\S+)\/901\//.exec(line);
          if (seq !== null) seqRpc = seq[1] as string;
          const el = /^chain 901 execution client\s+(\S+)/.exec(line);
          if (el !== null) seqEl = el[1] as string;
          const fol = /^follower 1\s+pid (\d+), RPC (\S+)\/<chain id>\/\s+metrics (\S+)/.exec(line);
          if (fol !== null) [followerPid, folRpc, folMetrics] = [Number(fol[1]), fol[2] as string, fol[3] as string];
          const peer = /^\s+chain 901\s+peer ID (16Uiu2\w+)\s+execution client (\S+)/.exec(line);
          if (peer !== null) {
            clearTimeout(timer);
            resolve({ seqRpc, seqEl, folRpc, folMetrics, folPeer: peer[1] as string, folEl: peer[2] as string });
          }
        });
        void exited.then(() => reject(new Error(`exited early:\n${lines.join("\n")}\n${stderr}`)));
      });
      expect(followerPid).toBeDefined();
      expect(followerPid).not.toBe(child.pid);
      const seqUrl = `${banner.seqRpc}/901/`;
      const folUrl = `${banner.folRpc}/901/`;

      // Close behind the sequencer (read before and after it) with the safe head behind: gossip, not batches.
      let seen: { seqBefore: SyncStatus; fol: SyncStatus } | undefined;
      for (let i = 0; seen === undefined; i++) {
        if (i > 150) throw new Error(`follower never caught up:\n${lines.join("\n")}`);
        const seqBefore = await rpc<SyncStatus>(seqUrl, "stack_syncStatus");
        const fol = await rpc<SyncStatus>(folUrl, "stack_syncStatus");
        if (
          fol.unsafe_l2.number >= 6 &&
          fol.unsafe_l2.number >= seqBefore.unsafe_l2.number - 2 &&
          fol.safe_l2.number < fol.unsafe_l2.number
        )
          seen = { seqBefore, fol };
        else await new Promise((r) => setTimeout(r, 200));
      }
      const seqAfter = await rpc<SyncStatus>(seqUrl, "stack_syncStatus");
      expect(seen.fol.unsafe_l2.number).toBeLessThanOrEqual(seqAfter.unsafe_l2.number);
      expect(seen.fol.safe_l2.number).toBeLessThan(seen.fol.unsafe_l2.number);

      // The follower's unsafe chain is the sequencer's, block by block.
      for (let n = 1; n <= seen.fol.unsafe_l2.number; n++) {
        const tag = `0x${n.toString(16)}`;
        const s = await rpc<{ hash: string }>(banner.seqEl, "eth_getBlockByNumber", [tag, false]);
        const f = await rpc<{ hash: string }>(banner.folEl, "eth_getBlockByNumber", [tag, false]);
        expect(f.hash).toBe(s.hash);
      }
      const tip = await rpc<{ hash: string }>(banner.seqEl, "eth_getBlockByNumber", [
        `0x${seen.fol.unsafe_l2.number.toString(16)}`,
        false,
      ]);
      expect(seen.fol.unsafe_l2.hash).toBe(tip.hash);

      // The follower's blocks came by gossip: it accepted gossiped blocks.
      const metrics = await (await fetch(banner.folMetrics)).text();
      const accepted = metrics
        .split("\n")
        .filter((l) => l.startsWith("supernode_p2p_gossip_messages_total{"))
        .filter((l) => l.includes('chain_id="901"') && l.includes('result="accept"'))
        .reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0);
      expect(accepted).toBeGreaterThan(0);

      // stackp2p_* on the follower.
      const self = await rpc<Record<string, unknown>>(folUrl, "stackp2p_self");
      expectPeerInfoShape(self);
      expect(self.peerID).toBe(banner.folPeer);
      expect(self.chainID).toBe(901);
      const seqSelf = await rpc<{ peerID: string }>(seqUrl, "stackp2p_self");
      const peers = await rpc<{
        totalConnected: number;
        peers: Record<string, Record<string, unknown>>;
        bannedPeers: unknown[];
        bannedIPS: unknown[];
        bannedSubnets: unknown[];
      }>(folUrl, "stackp2p_peers", [true]);
      expect(Object.keys(peers).sort()).toEqual([
        "bannedIPS",
        "bannedPeers",
        "bannedSubnets",
        "peers",
        "totalConnected",
      ]);
      expect(peers.totalConnected).toBe(1);
      expect(Object.keys(peers.peers)).toEqual([seqSelf.peerID]);
      const seqInfo = peers.peers[seqSelf.peerID] as Record<string, unknown>;
      expectPeerInfoShape(seqInfo);
      expect(seqInfo.protected).toBe(true); // a static peer
      expect(seqInfo.gossipBlocks).toBe(true);
      for (const k of ["bannedPeers", "bannedIPS", "bannedSubnets"] as const) expect(peers[k]).toEqual([]);

      child.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(lines.at(-1)).toBe("devnet stopped");
      expect(alive(followerPid as number)).toBe(false);
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      if (followerPid !== undefined && alive(followerPid)) process.kill(followerPid, "SIGKILL");
    }
  }, 150_000);
});
