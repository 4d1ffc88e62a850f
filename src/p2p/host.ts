/**
 * One chain's P2P host: a libp2p node (TCP, noise, yamux, identify, ping, gossipsub with OP's router parameters)
 * with its own key, gater and peers in `<data-dir>/chain-<id>/p2p/`. It joins the chain's four block topics,
 * validates every message in op-node's order (src/protocol/p2p/validate.ts) and hands accepted payloads to the
 * node; a sequencing chain publishes its blocks signed with `p2p.sequencer.key`. Unless `p2p.no-discovery`, discv5
 * (src/p2p/discovery.ts) runs beside it and feeds discovered peers of the chain into its peer store and dials; the
 * peer store itself is persisted in `peerstore.json` (src/p2p/peerstore-file.ts).
 */
import { noise } from "@chainsafe/libp2p-noise";
import { yamux } from "@chainsafe/libp2p-yamux";
import { privateKeyFromRaw } from "@libp2p/crypto/keys";
import { gossipsub, type Message, TopicValidatorResult } from "@libp2p/gossipsub";
import { identify } from "@libp2p/identify";
import type { Connection, PeerId } from "@libp2p/interface";
import { ping } from "@libp2p/ping";
import { tcp } from "@libp2p/tcp";
import { multiaddr } from "@multiformats/multiaddr";
import { createLibp2p } from "libp2p";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { P2pConfig } from "../config/types.js";
import type { Logger } from "../core/logger.js";
import { type Clock, nowSec } from "../core/time/clock.js";
import type { ExecutionPayloadEnvelope } from "../protocol/engine-api-types.js";
import { blocksTopics, topicVersion } from "../protocol/p2p/gossip.js";
import { bootnodeList } from "../protocol/p2p/bootnodes.js";
import { parseSecretKeyHex } from "../protocol/p2p/signing.js";
import type { PayloadVersion } from "../protocol/p2p/ssz-payload.js";
import {
  type GossipValidationContext,
  SeenBlocks,
  type SignerView,
  validateBlockMessage,
} from "../protocol/p2p/validate.js";
import type { RollupConfig } from "../protocol/rollup-config.js";
import { ChainDiscovery, type DiscoveryTiming } from "./discovery.js";
import type { InboundLimits } from "./discv5-limits.js";
import { GaterState } from "./gater.js";
import { loadOrCreateNodeKey } from "./key-file.js";
import type { P2PMetrics } from "./metrics.js";
import { PeerManager, type PeerTiming } from "./peer-manager.js";
import { PersistedDatastore } from "./peerstore-file.js";
import { type BlockSigner, BlockPublisher, LocalBlockSigner } from "./publisher.js";
import { PayloadByNumber, type PayloadSource } from "./req-resp.js";
import { gossipOptions } from "./router-params.js";
import type { Host, PubSub } from "./types.js";
import { ValidationThrottle, type Verdict } from "./validation-throttle.js";

export type { Host, PubSub };

export interface ChainP2POptions {
  readonly chainId: bigint;
  readonly rollup: RollupConfig;
  readonly p2p: P2pConfig;
  /** Directory for the gater file (`<chain dir>/p2p`); undefined keeps everything in memory. */
  readonly dir?: string;
  /** Bootnodes instead of `p2p.bootnodes` and the built-in list (tests: `[]` = none). */
  readonly bootnodes?: readonly string[];
  /** Discovery pacing (op-node's by default; tests shorten it). */
  readonly discoveryTiming?: Partial<DiscoveryTiming>;
  /** discv5 inbound packet limits (`INBOUND_LIMITS` by default; tests shorten the ban). */
  readonly discoveryLimits?: Partial<InboundLimits>;
  /** Peer-management intervals (default op-node's; tests shorten them). */
  readonly timing?: Partial<PeerTiming>;
}

/** How often the peer store snapshot is written (also at stop). */
const PEERSTORE_SAVE_MS = 5 * 60_000;
/** Addresses learnt from discovery stay usable this long (op-node's discovered-address TTL). */
const MAX_ADDRESS_AGE_MS = 24 * 3_600_000;
const MAX_PEER_AGE_MS = 7 * 24 * 3_600_000;

export interface ChainP2PDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: P2PMetrics | undefined;
  /** The unsafe-block signer as read from L1. */
  readonly signer: () => SignerView;
  /** An accepted gossip payload (never our own). */
  readonly onPayload?: (env: ExecutionPayloadEnvelope, from: string) => void;
  /** Signs published blocks (a remote signer); default: `p2p.sequencer.key`, and without it nothing is published. */
  readonly blockSigner?: BlockSigner | undefined;
}

const VERDICT = {
  accept: TopicValidatorResult.Accept,
  ignore: TopicValidatorResult.Ignore,
  reject: TopicValidatorResult.Reject,
} as const;

export class ChainP2P {
  private readonly seen = new SeenBlocks();
  private readonly publisher: BlockPublisher | undefined;
  onPayload: ((env: ExecutionPayloadEnvelope, from: string) => void) | undefined;
  readonly peers: PeerManager;
  readonly reqResp: PayloadByNumber;
  private gapBusy = false;
  /** discv5 of this chain; undefined under `p2p.no-discovery` (and before start). */
  discovery: ChainDiscovery | undefined;
  private saveTimer: NodeJS.Timeout | undefined;

  private constructor(
    readonly opts: ChainP2POptions,
    private readonly d: ChainP2PDeps,
    readonly host: Host,
    readonly gater: GaterState,
    private readonly secretKey: Uint8Array,
    private readonly peerstore: PersistedDatastore,
  ) {
    this.onPayload = d.onPayload;
    const k = opts.p2p.sequencerKey;
    const signer =
      d.blockSigner ?? (k === undefined || k === "" ? undefined : new LocalBlockSigner(parseSecretKeyHex(k)));
    this.publisher =
      signer === undefined
        ? undefined
        : new BlockPublisher({
            chainId: opts.chainId,
            rollup: opts.rollup,
            signer,
            pubsub: () => this.pubsub,
            seen: this.seen,
            l1Signer: d.signer,
            clock: d.clock,
            logger: d.logger,
            metrics: d.metrics,
          });
    this.peers = new PeerManager(
      host,
      gater,
      opts.p2p,
      d.clock,
      d.logger,
      d.metrics,
      opts.timing,
      blocksTopics(opts.chainId),
    );
    this.reqResp = new PayloadByNumber({
      host,
      chainId: opts.chainId,
      rollup: opts.rollup,
      clock: d.clock,
      logger: d.logger,
      peers: this.peers,
      metrics: d.metrics,
    });
  }

  /** Serves `payload_by_number` from `source` (only with `p2p.sync.req-resp`). */
  async servePayloads(source: PayloadSource): Promise<void> {
    if (this.opts.p2p.syncReqResp) await this.reqResp.serve(source);
  }

  /**
   * The node's `UnsafeGapFiller`: fetches the blocks strictly between `from` and `to` from peers and hands them to
   * `onPayload` (one range at a time; with `p2p.sync.onlyreqtostatic` only static peers are asked).
   */
  requestRange(from: number, to: { readonly number: number; readonly parentHash: string }): void {
    if (!this.opts.p2p.syncReqResp || this.gapBusy) return;
    this.gapBusy = true;
    const only = this.opts.p2p.syncOnlyReqToStatic ? (id: string) => this.peers.isStatic(id) : undefined;
    void this.reqResp
      .fillGap(from, to.number, to.parentHash as `0x${string}`, (env) => this.onPayload?.(env, "req-resp"), only)
      .catch((err: unknown) => this.d.logger.debug({ err: String(err) }, "gap fill failed"))
      .finally(() => {
        this.gapBusy = false;
      });
  }

  static async create(opts: ChainP2POptions, deps: ChainP2PDeps): Promise<ChainP2P> {
    const p2p = opts.p2p;
    const sk = await loadOrCreateNodeKey(p2p.privPath, p2p.privRaw);
    await createStoreDirs(opts.dir, p2p);
    const gater = await GaterState.open(opts.dir === undefined ? undefined : join(opts.dir, "gater.json"), deps.clock);
    const topics = blocksTopics(opts.chainId);
    let appScore: (id: string) => number = () => 0;
    const gate = gaterCallbacks(gater);
    const peerstore = await PersistedDatastore.open(p2p.peerstorePath === "memory" ? undefined : p2p.peerstorePath);
    const family = p2p.listenIp.includes(":") ? "ip6" : "ip4";
    const host = (await createLibp2p({
      privateKey: privateKeyFromRaw(sk),
      addresses: { listen: [`/${family}/${p2p.listenIp}/tcp/${p2p.listenTcp}`] },
      transports: [tcp({ inboundSocketInactivityTimeout: 10 * 60_000, outboundSocketInactivityTimeout: 10 * 60_000 })],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
      connectionGater: gate,
      datastore: peerstore.datastore,
      peerStore: { maxAddressAge: MAX_ADDRESS_AGE_MS, maxPeerAge: MAX_PEER_AGE_MS },
      connectionManager: {
        maxConnections: Math.max(p2p.peersHi * 2, p2p.peersHi + 10),
        dialTimeout: p2p.timeoutDialMs,
      },
      nodeInfo: { userAgent: p2p.userAgent },
      start: false,
      services: {
        identify: identify(),
        ping: ping(),
        pubsub: gossipsub(gossipOptions(p2p, topics, opts.rollup.block_time, (id) => appScore(id))) as unknown as (
          c: object,
        ) => PubSub,
      },
    })) as unknown as Host;
    const self = new ChainP2P(opts, deps, host, gater, sk, peerstore);
    appScore = (id) => self.peers.appScore(id);
    return self;
  }

  get pubsub(): PubSub {
    return this.host.services.pubsub;
  }

  get peerId(): string {
    return this.host.peerId.toString();
  }

  /** Listen addresses with `/p2p/<id>` appended. */
  addrs(): string[] {
    return this.host.getMultiaddrs().map((a) => a.toString());
  }

  async start(): Promise<void> {
    await this.host.start();
    const ps = this.pubsub;
    for (const topic of blocksTopics(this.opts.chainId)) {
      const v = topicVersion(this.opts.chainId, topic) as PayloadVersion;
      // op-node's wrapper: at most 4 validations of a topic at once, 3 s each (else IGNORE), a throw REJECTs.
      const throttle = new ValidationThrottle((reason, err) => {
        this.d.metrics?.gossip.inc({ topic: `v${v + 1}`, result: reason === "threw" ? "reject" : "ignore" });
        this.d.logger.debug(
          { reason, err: err === undefined ? undefined : String(err), version: v },
          "gossip validation dropped",
        );
      });
      ps.topicValidators.set(
        topic,
        async (peer: PeerId, msg: Message) => VERDICT[await throttle.run(() => this.validate(v, peer, msg))],
      );
      ps.subscribe(topic);
    }
    this.peers.start();
    if (!this.opts.p2p.noDiscovery) await this.startDiscovery();
    this.saveTimer = setInterval(() => void this.savePeerstore(), PEERSTORE_SAVE_MS);
    this.saveTimer.unref();
    this.d.logger.info({ peerId: this.peerId, addrs: this.addrs() }, "p2p host started");
  }

  private async startDiscovery(): Promise<void> {
    const p2p = this.opts.p2p;
    const tcpPort = this.host
      .getMultiaddrs()
      .map((a) => Number(/\/tcp\/(\d+)/.exec(a.toString())?.[1] ?? 0))
      .find((port) => port > 0);
    this.discovery = await ChainDiscovery.create(
      {
        chainId: this.opts.chainId,
        p2p,
        secretKey: this.secretKey,
        privateKey: privateKeyFromRaw(this.secretKey),
        tcpPort: tcpPort ?? 0,
        bootnodes: this.opts.bootnodes ?? bootnodeList(p2p.bootnodes),
        storePath: p2p.discoveryPath === "memory" ? undefined : p2p.discoveryPath,
        ...(this.opts.discoveryTiming === undefined ? {} : { timing: this.opts.discoveryTiming }),
        ...(this.opts.discoveryLimits === undefined ? {} : { inboundLimits: this.opts.discoveryLimits }),
      },
      { host: this.host, gater: this.gater, clock: this.d.clock, logger: this.d.logger, metrics: this.d.metrics },
    );
    this.discovery.start();
  }

  private async savePeerstore(): Promise<void> {
    try {
      await this.peerstore.save();
    } catch (err) {
      this.d.logger.warn({ err: String(err) }, "saving the peer store failed");
    }
  }

  async stop(): Promise<void> {
    this.peers.stop();
    if (this.saveTimer !== undefined) clearInterval(this.saveTimer);
    await this.discovery?.stop();
    this.discovery = undefined;
    await this.host.stop();
    await this.savePeerstore();
    await this.gater.flush();
  }

  private ctx(): GossipValidationContext {
    return {
      chainId: this.opts.chainId,
      rollup: this.opts.rollup,
      nowSec: nowSec(this.d.clock),
      maxAgeSec: Math.floor(this.opts.p2p.gossip.timestampThresholdMs / 1000),
      signer: this.d.signer(),
      seen: this.seen,
    };
  }

  /** op-node's validation of one message (a throw is counted as a reject by the throttle). */
  private validate(v: PayloadVersion, peer: PeerId, msg: Message): Verdict {
    const r = validateBlockMessage(this.ctx(), v, msg.data);
    if (r.verdict !== "accept")
      this.d.logger.debug({ peer: peer.toString(), reason: r.reason, version: v }, "gossip block not accepted");
    if (r.verdict === "accept" && r.envelope !== undefined) this.onPayload?.(r.envelope, peer.toString());
    this.d.metrics?.gossip.inc({ topic: `v${v + 1}`, result: r.verdict });
    return r.verdict;
  }

  /**
   * Publishes a block this chain built (the sequencer's `UnsafeBlockSink`), signed by the block signer; a no-op
   * without one. Resolves once the block is out or given up (src/p2p/publisher.ts); never rejects.
   */
  publish(env: ExecutionPayloadEnvelope): Promise<void> {
    return this.publisher?.publish(env) ?? Promise.resolve();
  }

  /** Dials a multiaddr with `/p2p/<id>` (RPC connectPeer, static peers). */
  async connect(addr: string, timeoutMs = 30_000): Promise<Connection> {
    const ma = multiaddr(addr);
    if (ma.getComponents().every((c) => c.name !== "p2p")) throw new Error("bad peer address: missing /p2p/ component");
    return this.host.dial(ma, { signal: AbortSignal.timeout(timeoutMs) });
  }
}

/** The IP of a `/ip4|ip6/<ip>/…` multiaddr. */
export function ipOf(addr: { toString(): string }): string | undefined {
  return /^\/ip[46]\/([^/]+)/.exec(addr.toString())?.[1];
}

function gaterCallbacks(g: GaterState) {
  const addrDenied = (a: { toString(): string }): boolean => {
    const ip = ipOf(a);
    return ip !== undefined && g.ipDenied(ip);
  };
  return {
    denyDialPeer: (id: PeerId) => g.peerDenied(id.toString()),
    denyDialMultiaddr: (ma: { toString(): string }) => {
      const m = /\/p2p\/([^/]+)/.exec(ma.toString());
      return (m?.[1] !== undefined && g.peerDenied(m[1])) || addrDenied(ma);
    },
    denyInboundConnection: (c: { remoteAddr: { toString(): string } }) => addrDenied(c.remoteAddr),
    denyOutboundConnection: () => false,
    denyInboundEncryptedConnection: (id: PeerId) => g.peerDenied(id.toString()),
    denyOutboundEncryptedConnection: () => false,
    denyInboundUpgradedConnection: () => false,
    denyOutboundUpgradedConnection: () => false,
    filterMultiaddrForPeer: () => true,
  };
}

/**
 * The folders of the chain's P2P stores exist before anything is written to them (the key may live elsewhere, so
 * nothing else creates `chain-<id>/p2p/`): a store whose folder is missing would fail every write.
 */
async function createStoreDirs(dir: string | undefined, p2p: P2pConfig): Promise<void> {
  const dirs = new Set<string>();
  if (dir !== undefined) dirs.add(dir);
  for (const path of [p2p.peerstorePath, p2p.discoveryPath]) if (path !== "memory") dirs.add(dirname(path));
  for (const d of dirs) await mkdir(d, { recursive: true, mode: 0o700 });
}
