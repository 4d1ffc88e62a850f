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

/** The gater's state; changed on a copy that replaces it once written. */
class GaterData {
  constructor(
    readonly peers = new Set<string>(),
    readonly addrs = new Set<string>(),
    public subnets: Subnet[] = [],
    /** Score bans: peer ID → expiry (ms). */
    readonly bans = new Map<string, number>(),
  ) {}

  copy(): GaterData {
    return new GaterData(new Set(this.peers), new Set(this.addrs), [...this.subnets], new Map(this.bans));
  }

  toJSON(): Persisted {
    return {
      peers: [...this.peers],
      addrs: [...this.addrs],
      subnets: this.subnets,
      bans: Object.fromEntries(this.bans),
    };
  }
}

/**
 * Every change follows one rule (docs/running.md, failure modes): it is made on a copy, the copy is written, and only
 * then does it replace the state and the caller's promise resolve. A failed write rejects and leaves the state as
 * it was (the caller may retry: nothing sticks); changes are written one at a time, in order.
 */
export class GaterState {
  private data = new GaterData();
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
        g.data = new GaterData(
          new Set(p.peers ?? []),
          new Set(p.addrs ?? []),
          (p.subnets ?? []).filter((s) => isIP(s.ip) !== 0),
          new Map(Object.entries(p.bans ?? {})),
        );
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
    g.rebuild();
    return g;
  }

  private rebuild(): void {
    const l = new BlockList();
    for (const a of this.data.addrs) l.addAddress(a, family(a));
    for (const s of this.data.subnets) l.addSubnet(s.ip, s.prefix, family(s.ip));
    this.list = l;
  }

  /** Applies `fn` to a copy of the state, writes it, then adopts it (see the class comment). */
  private change(fn: (next: GaterData) => void): Promise<void> {
    const run = async () => {
      const next = this.data.copy();
      fn(next);
      await this.write(next);
      this.data = next;
      this.rebuild();
    };
    const done = this.saving.then(run);
    this.saving = done.catch(() => undefined);
    return done;
  }

  private async write(d: GaterData): Promise<void> {
    const path = this.path;
    if (path === undefined) return;
    await writeFile(`${path}.tmp`, JSON.stringify(d), { mode: 0o600 });
    await rename(`${path}.tmp`, path);
  }

  blockPeer(id: string): Promise<void> {
    return this.change((d) => d.peers.add(id));
  }
  async unblockPeer(id: string): Promise<void> {
    let unbanned = false;
    await this.change((d) => {
      d.peers.delete(id);
      unbanned = d.bans.delete(id);
    });
    if (unbanned) this.onUnban?.();
  }
  blockedPeers(): string[] {
    return [...this.data.peers];
  }
  blockAddr(ip: string): Promise<void> {
    return this.change((d) => d.addrs.add(ip));
  }
  unblockAddr(ip: string): Promise<void> {
    return this.change((d) => d.addrs.delete(ip));
  }
  blockedAddrs(): string[] {
    return [...this.data.addrs];
  }
  blockSubnet(s: Subnet): Promise<void> {
    return this.change((d) => {
      if (!d.subnets.some((x) => x.ip === s.ip && x.prefix === s.prefix)) d.subnets.push(s);
    });
  }
  unblockSubnet(s: Subnet): Promise<void> {
    return this.change((d) => {
      d.subnets = d.subnets.filter((x) => !(x.ip === s.ip && x.prefix === s.prefix));
    });
  }
  blockedSubnets(): Subnet[] {
    return [...this.data.subnets];
  }

  /** Bans a peer until `untilMs` (score bans; not listed among the blocked peers, like op-node). */
  banPeer(id: string, untilMs: number): Promise<void> {
    return this.change((d) => d.bans.set(id, untilMs));
  }

  /** Whether the peer is blocked or banned; an expired ban is removed on the way (written in the background). */
  peerDenied(id: string): boolean {
    if (this.data.peers.has(id)) return true;
    const until = this.data.bans.get(id);
    if (until === undefined) return false;
    if (until > this.clock.nowMs()) return true;
    this.data.bans.delete(id);
    this.onUnban?.();
    void this.change(() => {}).catch(() => {}); // an expired ban is gone either way; the next change writes it
    return false;
  }

  ipDenied(ip: string): boolean {
    return isIP(ip) !== 0 && this.list.check(ip, family(ip));
  }

  /** Number of active bans (metrics). */
  bannedCount(): number {
    const now = this.clock.nowMs();
    return [...this.data.bans.values()].filter((t) => t > now).length;
  }

  /** Waits for the writes in progress (a failed one has already rejected its caller). */
  async flush(): Promise<void> {
    await this.saving;
  }
}
