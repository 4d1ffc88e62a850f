/**
 * The connection gater of one chain's host: permanent block lists from the RPC (peers, IPs, subnets) and
 * time-limited score bans, persisted as JSON in `chain-<id>/p2p/gater.json` and reloaded at start. Block-list
 * changes never close existing connections (op-node behaves the same); bans do (the caller closes them).
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { BlockList, isIP } from "node:net";
import type { Clock } from "../core/time/clock.js";

export interface Subnet {
  readonly ip: string;
  readonly prefix: number;
}

interface Persisted {
  peers: string[];
  addrs: string[];
  subnets: Subnet[];
  bans: Record<string, number>;
}

const family = (ip: string): "ipv4" | "ipv6" => (isIP(ip) === 6 ? "ipv6" : "ipv4");

export class GaterState {
  private readonly peers = new Set<string>();
  private readonly addrs = new Set<string>();
  private subnets: Subnet[] = [];
  /** Score bans: peer ID → expiry (ms). */
  private readonly bans = new Map<string, number>();
  private list = new BlockList();
  private saving: Promise<void> = Promise.resolve();
  onUnban: (() => void) | undefined;

  private constructor(
    private readonly path: string | undefined,
    private readonly clock: Clock,
  ) {}

  static async open(path: string | undefined, clock: Clock): Promise<GaterState> {
    const g = new GaterState(path, clock);
    if (path !== undefined) {
      try {
        const p = JSON.parse(await readFile(path, "utf8")) as Partial<Persisted>;
        for (const x of p.peers ?? []) g.peers.add(x);
        for (const x of p.addrs ?? []) g.addrs.add(x);
        g.subnets = (p.subnets ?? []).filter((s) => isIP(s.ip) !== 0);
        for (const [k, v] of Object.entries(p.bans ?? {})) g.bans.set(k, v);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
    g.rebuild();
    return g;
  }

  private rebuild(): void {
    const l = new BlockList();
    for (const a of this.addrs) l.addAddress(a, family(a));
    for (const s of this.subnets) l.addSubnet(s.ip, s.prefix, family(s.ip));
    this.list = l;
  }

  private persist(): Promise<void> {
    this.rebuild();
    const path = this.path;
    if (path === undefined) return Promise.resolve();
    const body: Persisted = {
      peers: [...this.peers],
      addrs: [...this.addrs],
      subnets: this.subnets,
      bans: Object.fromEntries(this.bans),
    };
    this.saving = this.saving.then(async () => {
      await writeFile(`${path}.tmp`, JSON.stringify(body), { mode: 0o600 });
      await rename(`${path}.tmp`, path);
    });
    return this.saving;
  }

  blockPeer(id: string): Promise<void> {
    this.peers.add(id);
    return this.persist();
  }
  unblockPeer(id: string): Promise<void> {
    this.peers.delete(id);
    if (this.bans.delete(id)) this.onUnban?.();
    return this.persist();
  }
  blockedPeers(): string[] {
    return [...this.peers];
  }
  blockAddr(ip: string): Promise<void> {
    this.addrs.add(ip);
    return this.persist();
  }
  unblockAddr(ip: string): Promise<void> {
    this.addrs.delete(ip);
    return this.persist();
  }
  blockedAddrs(): string[] {
    return [...this.addrs];
  }
  blockSubnet(s: Subnet): Promise<void> {
    if (!this.subnets.some((x) => x.ip === s.ip && x.prefix === s.prefix)) this.subnets.push(s);
    return this.persist();
  }
  unblockSubnet(s: Subnet): Promise<void> {
    this.subnets = this.subnets.filter((x) => !(x.ip === s.ip && x.prefix === s.prefix));
    return this.persist();
  }
  blockedSubnets(): Subnet[] {
    return [...this.subnets];
  }

  /** Bans a peer until `untilMs` (score bans; not listed among the blocked peers, like op-node). */
  banPeer(id: string, untilMs: number): Promise<void> {
    this.bans.set(id, untilMs);
    return this.persist();
  }

  /** Whether the peer is blocked or banned; an expired ban is removed on the way. */
  peerDenied(id: string): boolean {
    if (this.peers.has(id)) return true;
    const until = this.bans.get(id);
    if (until === undefined) return false;
    if (until > this.clock.nowMs()) return true;
    this.bans.delete(id);
    this.onUnban?.();
    void this.persist();
    return false;
  }

  ipDenied(ip: string): boolean {
    return isIP(ip) !== 0 && this.list.check(ip, family(ip));
  }

  /** Number of active bans (metrics). */
  bannedCount(): number {
    const now = this.clock.nowMs();
    return [...this.bans.values()].filter((t) => t > now).length;
  }

  async flush(): Promise<void> {
    await this.saving;
  }
}
