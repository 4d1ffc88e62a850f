import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { P2pConfig } from "../../../src/config/types.js";
import { type Logger, silentLogger } from "../../../src/core/logger.js";
import { systemClock } from "../../../src/core/time/clock.js";
import type { Address } from "../../../src/core/types/primitives.js";
import type { ExecutionPayloadEnvelope } from "../../../src/protocol/engine-api-types.js";
import type { DiscoveryTiming } from "../../../src/p2p/discovery.js";
import type { InboundLimits } from "../../../src/p2p/discv5-limits.js";
import { ChainP2P } from "../../../src/p2p/host.js";
import type { P2PMetrics } from "../../../src/p2p/metrics.js";
import type { PeerTiming } from "../../../src/p2p/peer-manager.js";
import type { BlockSigner } from "../../../src/p2p/publisher.js";
import type { RollupConfig } from "../../../src/protocol/rollup-config.js";
import { p2pRollup } from "../../unit/protocol/p2p/fixtures.js";

export function p2pConfig(dir: string, over: Partial<P2pConfig> = {}): P2pConfig {
  return {
    disabled: false,
    noDiscovery: true,
    scoring: "light",
    banPeers: true,
    banThreshold: -100,
    banDurationMs: 3_600_000,
    privPath: join(dir, "p2p_priv.txt"),
    listenIp: "127.0.0.1",
    listenTcp: 0,
    listenUdp: 0,
    advertiseTcp: 0,
    advertiseUdp: 0,
    bootnodes: [],
    static: [],
    netrestrict: [],
    peersLo: 20,
    peersHi: 30,
    peersGraceMs: 30_000,
    nat: false,
    userAgent: "supernode-test",
    timeoutDialMs: 10_000,
    peerstorePath: "memory",
    discoveryPath: "memory",
    gossip: {
      meshD: 8,
      meshDlo: 6,
      meshDhi: 12,
      meshDlazy: 6,
      floodPublish: false,
      timestampThresholdMs: 60_000,
    },
    syncReqResp: true,
    syncOnlyReqToStatic: false,
    ping: true,
    ...over,
  };
}

export interface RigHost {
  readonly p2p: ChainP2P;
  readonly received: { env: ExecutionPayloadEnvelope; from: string }[];
}

/** Hosts made by the rig; `closeAll` stops them and removes their directories. */
export class P2PRig {
  private readonly hosts: ChainP2P[] = [];
  private readonly dirs: string[] = [];

  async dir(): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), "sn-p2p-"));
    this.dirs.push(d);
    return d;
  }

  async host(
    chainId: bigint,
    opts: {
      dir?: string;
      signer: () => Address | undefined;
      sequencerKey?: string;
      rollup?: RollupConfig;
      /** Bootnodes replacing `p2p.bootnodes` and the built-in list (`[]` = none). */
      bootnodes?: readonly string[];
      discoveryTiming?: Partial<DiscoveryTiming>;
      discoveryLimits?: Partial<InboundLimits>;
      metrics?: P2PMetrics;
      timing?: Partial<PeerTiming>;
      blockSigner?: BlockSigner;
      logger?: Logger;
    } & Omit<Partial<P2pConfig>, "bootnodes">,
  ): Promise<RigHost> {
    const {
      dir: d0,
      signer,
      sequencerKey,
      rollup,
      bootnodes,
      discoveryTiming,
      discoveryLimits,
      metrics,
      timing,
      blockSigner,
      logger,
      ...over
    } = opts;
    const dir = d0 ?? (await this.dir());
    const received: RigHost["received"] = [];
    const p2p = await ChainP2P.create(
      {
        chainId,
        rollup: rollup ?? p2pRollup({ l2_chain_id: chainId }),
        p2p: p2pConfig(dir, { ...(sequencerKey === undefined ? {} : { sequencerKey }), ...over }),
        dir,
        ...(bootnodes === undefined ? {} : { bootnodes }),
        ...(discoveryTiming === undefined ? {} : { discoveryTiming }),
        ...(discoveryLimits === undefined ? {} : { discoveryLimits }),
        ...(timing === undefined ? {} : { timing }),
      },
      {
        clock: systemClock,
        logger: logger ?? silentLogger,
        metrics,
        blockSigner,
        signer: () => ({ current: signer() }),
        onPayload: (env, from) => received.push({ env, from }),
      },
    );
    this.hosts.push(p2p);
    await p2p.start();
    return { p2p, received };
  }

  async stop(h: ChainP2P): Promise<void> {
    const i = this.hosts.indexOf(h);
    if (i >= 0) this.hosts.splice(i, 1);
    await h.stop();
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled(this.hosts.map((h) => h.stop()));
    this.hosts.length = 0;
    await Promise.allSettled(this.dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
}
