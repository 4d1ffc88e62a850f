/**
 * discv5 discovery of one chain (`@chainsafe/discv5` 11 over its own UDP socket, beside the chain's libp2p host),
 * after op-node's discovery process: the local ENR carries the `opstack` entry; records found by random lookups
 * (and, after a short delay, every record already in the table) pass op-node's chain filter, go into the libp2p
 * peer store tagged `opstack-<chain>-0` = 42, and a connect tick dials known peers while the host has fewer than
 * `p2p.peers.lo` peers (fast ticks), else ticks slowly. Unlike op-node, a lookup that finds no new record of the
 * chain doubles the lookup interval (up to the slow one): discv5 in JS verifies every returned record's signature,
 * and back-to-back lookups of 16+ chains in networks with few peers of theirs cost a noticeable share of a core
 * (ADR 0071). Dials go through the host, so the gater applies; nothing is
 * dialled at or above `p2p.peers.hi`. The routing table is persisted in `chain-<id>/p2p/discovery.json`.
 */
import { Discv5 } from "@chainsafe/discv5";
import type { ENR, SignableENR } from "@chainsafe/enr";
import { peerIdFromString } from "@libp2p/peer-id";
import { multiaddr } from "@multiformats/multiaddr";
import { multiaddr as multiaddr12 } from "multiaddr12";
import type { EventEmitter } from "node:events";
import { lookup } from "node:dns/promises";
import { type BlockList, isIP } from "node:net";
import type { P2pConfig } from "../config/types.js";
import type { Logger } from "../core/logger.js";
import type { Clock } from "../core/time/clock.js";
import { bootnodeEnr, type DialTarget, dialTarget, enrOnChain, localEnr, recordDigest, setAddress } from "./enr.js";
import { enrIp, netrestrict, shuffle } from "./discovery-util.js";
import { INBOUND_LIMITS, InboundLimiter, type InboundLimits } from "./discv5-limits.js";
import { boundPort, installVerifiedRecordCache, transportOf, unrefLookupTimeouts } from "./discv5-patches.js";
import type { GaterState } from "./gater.js";
import { JsonFile } from "./json-file.js";
import type { P2PMetrics } from "./metrics.js";
import type { Host } from "./types.js";

/** op-node's pacing (discovery.go); tests shorten it. */
export interface DiscoveryTiming {
  readonly lookupFastMs: number;
  readonly lookupSlowMs: number;
  readonly connectFastMs: number;
  readonly connectSlowMs: number;
  /** Delay before the records already in the table are fed through the filter. */
  readonly kickoffMs: number;
  readonly dialTimeoutMs: number;
  /** How often the routing table is written to disk (also at stop). */
  readonly saveMs: number;
}

export const OP_NODE_TIMING: DiscoveryTiming = {
  lookupFastMs: 5_000,
  lookupSlowMs: 20_000,
  connectFastMs: 5_000,
  connectSlowMs: 20_000,
  kickoffMs: 3_000,
  dialTimeoutMs: 10_000,
  saveMs: 60_000,
};

const CONNECT_WORKERS = 4;
const TAG_VALUE = 42;

interface Persisted {
  readonly seq: string;
  readonly digest: string;
  readonly enr: string;
  readonly nodes: string[];
  /** Peer ID → the record it was discovered with (op-node keeps this as peer metadata for 7 days). */
  readonly peers?: Record<string, string>;
}

export interface ChainDiscoveryOptions {
  readonly chainId: bigint;
  readonly p2p: P2pConfig;
  /** The node key (32 bytes), the same as the libp2p identity's. */
  readonly secretKey: Uint8Array;
  readonly privateKey: { readonly type: string; readonly raw: Uint8Array };
  /** The TCP port the libp2p host is bound to. */
  readonly tcpPort: number;
  /** Bootnode strings (`enr:` / `enode://`): `p2p.bootnodes`, or op-node's list when that is empty. */
  readonly bootnodes: readonly string[];
  /** `chain-<id>/p2p/discovery.json`, or undefined for `p2p.discovery.path=memory`. */
  readonly storePath?: string | undefined;
  readonly timing?: Partial<DiscoveryTiming>;
  /** Host name → IP for `p2p.advertise.ip` and enode bootnodes (default: the first IPv4 from DNS). */
  readonly resolve?: (host: string) => Promise<string>;
  /** Inbound packet limits (default `INBOUND_LIMITS`; tests shorten the ban). */
  readonly inboundLimits?: Partial<InboundLimits>;
}

export interface ChainDiscoveryDeps {
  readonly host: Host;
  readonly gater: GaterState;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: P2PMetrics | undefined;
}

/** What discovery learnt about a peer (for `stackp2p_*` peer information). */
export interface DiscoveredPeer {
  readonly enr: string;
  readonly chainId: bigint;
}

const resolveIpv4 = async (host: string): Promise<string> => (await lookup(host, { family: 4 })).address;

export class ChainDiscovery {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly known = new Map<string, DiscoveredPeer>();
  private readonly tag: string;
  private readonly allowed: BlockList | undefined;
  private stopped = false;
  private lookupBusy = false;
  private connectBusy = false;
  private fast = true;
  private lookupMs = 0;
  private lastSaved = "";
  /** The local record's content as last signed (see `recordDigest`). */
  private digest = "";
  /** The inbound packet limiter of the discv5 socket (bans expire, idle entries pruned every `limitSweepMs`). */
  limiter: InboundLimiter | undefined;
  private limitSweepMs = INBOUND_LIMITS.sweepMs;

  private constructor(
    private readonly opts: ChainDiscoveryOptions,
    private readonly d: ChainDiscoveryDeps,
    private readonly dv5: Discv5,
    private readonly store: JsonFile<Persisted> | undefined,
    private readonly timing: DiscoveryTiming,
  ) {
    this.tag = `opstack-${opts.chainId}-0`;
    this.lookupMs = timing.lookupFastMs;
    this.allowed = netrestrict(opts.p2p.netrestrict);
  }

  static async create(opts: ChainDiscoveryOptions, deps: ChainDiscoveryDeps): Promise<ChainDiscovery> {
    unrefLookupTimeouts();
    installVerifiedRecordCache();
    const p2p = opts.p2p;
    const resolve = opts.resolve ?? resolveIpv4;
    const store = opts.storePath === undefined ? undefined : new JsonFile<Persisted>(opts.storePath);
    const saved = await store?.read();
    const ip = await enrIp(p2p, resolve);
    // discv5-js contacts only records of its socket's family, and a dual-stack pair needs two UDP ports. `::` (all
    // interfaces) therefore runs discovery over IPv4 on all interfaces, where op-node's bootnodes and peers are;
    // a specific IPv6 address runs it over IPv6.
    const wildcard6 = p2p.listenIp === "::";
    const family = isIP(p2p.listenIp) === 6 && !wildcard6 ? "ip6" : "ip4";
    const bind = multiaddr12(`/${family}/${wildcard6 ? "0.0.0.0" : p2p.listenIp}/udp/${p2p.listenUdp}`);
    if (wildcard6)
      deps.logger.info({}, "p2p.listen.ip is ::: discovery runs over IPv4 (UDP on 0.0.0.0); libp2p listens on both");
    const tcp = p2p.advertiseTcp || opts.tcpPort || p2p.listenTcp;
    if (tcp === 0) throw new Error("no TCP port to put in discovery record");
    // The UDP port is known once the socket is bound (listen.udp 0 = ephemeral); the record is re-addressed then.
    const enr = localEnr(opts.secretKey, opts.chainId, { ip, tcp, udp: p2p.advertiseUdp || p2p.listenUdp, seq: 1n });
    const limits = { ...INBOUND_LIMITS, ...opts.inboundLimits };
    const dv5 = Discv5.create({
      enr,
      privateKey: opts.privateKey as Parameters<typeof Discv5.create>[0]["privateKey"],
      bindAddrs: family === "ip6" ? { ip6: bind } : { ip4: bind },
      config: { enrUpdate: p2p.advertiseIp === undefined },
      rateLimiterOpts: {
        byIPQuota: { replenishAllEvery: limits.windowMs, maxTokens: limits.perIp },
        globalQuota: { replenishAllEvery: limits.windowMs, maxTokens: limits.total },
      },
    });
    const transport = transportOf(dv5);
    const self = new ChainDiscovery(opts, deps, dv5, store, { ...OP_NODE_TIMING, ...opts.timing });
    self.limiter = new InboundLimiter(transport, limits.banMs, {
      dropped: () => deps.metrics?.discoveryDropped.inc(),
      banned: (ip) =>
        deps.logger.debug({ ip }, "discovery: inbound packets over the rate limit; source dropped for a while"),
    });
    self.limitSweepMs = limits.sweepMs;
    await dv5.start();
    const udp = p2p.advertiseUdp || p2p.listenUdp || boundPort(transport);
    setAddress(enr, { ip, tcp, udp });
    const digest = recordDigest(opts.chainId, { ip, tcp, udp });
    // geth's rule: a fresh node DB seeds the sequence number with the time in ms; a changed record bumps it.
    const prev = saved === undefined ? undefined : BigInt(saved.seq);
    enr.seq = prev === undefined ? BigInt(deps.clock.nowMs()) : saved?.digest === digest ? prev : prev + 1n;
    self.digest = digest;
    for (const [id, enr] of Object.entries(saved?.peers ?? {})) self.known.set(id, { enr, chainId: opts.chainId });
    await self.seed(saved?.nodes ?? [], resolve);
    return self;
  }

  /** Adds the persisted records and the bootnodes to the routing table. */
  private async seed(persisted: readonly string[], resolve: (host: string) => Promise<string>): Promise<void> {
    for (const text of persisted) {
      try {
        this.dv5.addEnr(text);
      } catch (err) {
        this.d.logger.debug({ err: String(err) }, "dropping a stored discovery record");
      }
    }
    for (const s of this.opts.bootnodes) {
      let enr: ENR;
      try {
        enr = await bootnodeEnr(s, resolve);
      } catch (err) {
        this.d.logger.warn({ bootnode: s, err: String(err) }, "skipping a bootnode");
        continue;
      }
      if (enr.nodeId === this.dv5.enr.nodeId) continue;
      this.dv5.addEnr(enr);
    }
  }

  /** The service's events (`discovered`, `enrAdded`); its typings do not resolve from here. */
  private get events(): EventEmitter {
    return this.dv5 as unknown as EventEmitter;
  }

  get enr(): SignableENR {
    return this.dv5.enr;
  }

  /** The local record as text (`enr:…`). */
  enrText(): string {
    return this.dv5.enr.encodeTxt();
  }

  /** The routing table as ENR text. */
  table(): string[] {
    return this.dv5.kadValues().map((e) => e.encodeTxt());
  }

  peer(id: string): DiscoveredPeer | undefined {
    return this.known.get(id);
  }

  start(): void {
    this.events.on("discovered", (enr: ENR) => this.consider(enr));
    this.events.on("enrAdded", (enr: ENR) => {
      this.consider(enr);
      this.updateTableMetric();
    });
    this.after(this.timing.kickoffMs, () => {
      for (const enr of this.dv5.kadValues()) this.consider(enr);
    });
    this.loop(
      () => (this.fast ? this.lookupMs : this.timing.lookupSlowMs),
      () => this.lookup(),
    );
    this.loop(
      () => (this.fast ? this.timing.connectFastMs : this.timing.connectSlowMs),
      () => this.connectTick(),
    );
    this.loop(
      () => this.timing.saveMs,
      () => this.save(),
    );
    this.loop(
      () => this.limitSweepMs,
      async () => this.limiter?.sweep(),
    );
    this.d.logger.info({ enr: this.enrText(), table: this.dv5.kadValues().length }, "discovery started");
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.save().catch((err: unknown) => this.d.logger.warn({ err: String(err) }, "saving discovery failed"));
    this.events.removeAllListeners();
    await this.dv5.stop();
  }

  private after(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  private loop(interval: () => number, fn: () => Promise<void>): void {
    this.after(interval(), () => {
      void fn()
        .catch((err: unknown) => this.d.logger.debug({ err: String(err) }, "discovery step failed"))
        .finally(() => {
          if (!this.stopped) this.loop(interval, fn);
        });
    });
  }

  private updateTableMetric(): void {
    this.d.metrics?.discoveryTable.set(this.dv5.kadValues().length);
  }

  private async lookup(): Promise<void> {
    if (this.lookupBusy || this.dv5.kadValues().length === 0) return;
    this.lookupBusy = true;
    try {
      let fresh = 0;
      for (const enr of await this.dv5.findRandomNode()) if (this.consider(enr)) fresh++;
      // Back off while lookups bring nothing new for this chain; any new record restores the fast pace.
      this.lookupMs = fresh > 0 ? this.timing.lookupFastMs : Math.min(this.lookupMs * 2, this.timing.lookupSlowMs);
    } finally {
      this.lookupBusy = false;
      this.updateTableMetric();
    }
  }

  /**
   * A record from discovery: on our chain → peer store (address + tag), remembered for peer information. True when
   * the record is new or newer than the one known.
   */
  private consider(enr: ENR): boolean {
    if (this.stopped || !enrOnChain(enr, this.opts.chainId)) return false;
    let target: DialTarget | undefined;
    try {
      target = dialTarget(enr);
    } catch {
      return false;
    }
    if (target === undefined || target.peerId === this.d.host.peerId.toString()) return false;
    if (this.allowed !== undefined && !this.allowed.check(target.ip, isIP(target.ip) === 6 ? "ipv6" : "ipv4"))
      return false;
    const text = enr.encodeTxt();
    const fresh = this.known.get(target.peerId)?.enr !== text;
    this.known.set(target.peerId, { enr: text, chainId: this.opts.chainId });
    void this.d.host.peerStore
      .merge(peerIdFromString(target.peerId), {
        multiaddrs: [multiaddr(target.addr)],
        tags: { [this.tag]: { value: TAG_VALUE } },
      })
      .catch((err: unknown) => this.d.logger.debug({ err: String(err) }, "peer store update failed"));
    return fresh;
  }

  private connectedPeers(): Set<string> {
    return new Set(this.d.host.getConnections().map((c) => c.remotePeer.toString()));
  }

  /** Below `peers.lo`: dial known peers (shuffled, 4 at a time) until the goal or `peers.hi` is reached. */
  private async connectTick(): Promise<void> {
    if (this.connectBusy) return;
    const cfg = this.opts.p2p;
    const connected = this.connectedPeers();
    this.fast = connected.size < cfg.peersLo;
    if (!this.fast) return;
    this.connectBusy = true;
    try {
      const self = this.d.host.peerId.toString();
      const candidates = (await this.d.host.peerStore.all())
        .filter((p) => p.addresses.length > 0)
        .map((p) => p.id)
        .filter((id) => {
          const s = id.toString();
          return s !== self && !connected.has(s) && !this.d.gater.peerDenied(s);
        });
      shuffle(candidates);
      // Dials in flight count towards the goal, so 4 workers starting at once do not overshoot it.
      let inFlight = 0;
      const worker = async (): Promise<void> => {
        for (let id = candidates.shift(); id !== undefined; id = candidates.shift()) {
          const now = this.connectedPeers().size + inFlight;
          if (this.stopped || now >= cfg.peersLo || now >= cfg.peersHi) return;
          inFlight++;
          try {
            await this.d.host.dial(id, { signal: AbortSignal.timeout(this.timing.dialTimeoutMs) });
          } catch (err) {
            this.d.logger.debug({ peer: id.toString(), err: String(err) }, "discovered peer dial failed");
          } finally {
            inFlight--;
          }
        }
      };
      await Promise.all(Array.from({ length: CONNECT_WORKERS }, worker));
    } finally {
      this.connectBusy = false;
    }
  }

  /** Writes the routing table (and the local record's seq) when it changed. */
  async save(): Promise<void> {
    if (this.store === undefined) return;
    const value: Persisted = {
      seq: this.dv5.enr.seq.toString(),
      digest: this.digest,
      enr: this.enrText(),
      nodes: this.table(),
      peers: Object.fromEntries([...this.known].map(([id, p]) => [id, p.enr])),
    };
    const text = JSON.stringify(value);
    if (text === this.lastSaved) return;
    await this.store.write(value);
    this.lastSaved = text;
  }
}
