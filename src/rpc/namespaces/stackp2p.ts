/**
 * The `stackp2p_*` namespace (upstream `opp2p_*`), answered from a small {@link P2PControl} view so the RPC layer
 * never sees libp2p. Registered only for chains whose P2P is enabled, so with `--disable-p2p` every method is
 * -32601. Shapes follow the specification (field names and key order as op-node emits them); method failures are
 * -32000 with op-node's message, malformed parameters -32602.
 */
import type { GossipScores } from "../../protocol/p2p/peer-scores.js";
import { InvalidParamsError, RpcError } from "../errors.js";
import { createMethodTable, type MethodTable } from "../method-table.js";

export interface PeerScores {
  readonly gossip: GossipScores;
  readonly reqResp: {
    readonly validResponses: number;
    readonly errorResponses: number;
    readonly rejectedPayloads: number;
  };
}

export interface PeerInfo {
  readonly peerID: string;
  readonly nodeID: string;
  readonly userAgent: string;
  readonly protocolVersion: string;
  readonly ENR: string;
  readonly addresses: string[] | null;
  readonly protocols: string[] | null;
  readonly connectedness: number;
  readonly direction: number;
  readonly protected: boolean;
  readonly chainID: number;
  readonly latency: number;
  readonly gossipBlocks: boolean;
  readonly scores: PeerScores;
}

/** A subnet as op-node's JSON shows `net.IPNet`: the IP text and the mask as padded base64. */
export interface SubnetJson {
  readonly IP: string;
  readonly Mask: string;
}

export interface PeerDump {
  readonly totalConnected: number;
  readonly peers: Record<string, PeerInfo>;
  readonly bannedPeers: string[];
  readonly bannedIPS: string[];
  readonly bannedSubnets: SubnetJson[];
}

export interface PeerStats {
  readonly connected: number;
  readonly table: number;
  readonly blocksTopic: number;
  readonly blocksTopicV2: number;
  readonly blocksTopicV3: number;
  readonly blocksTopicV4: number;
  readonly banned: number;
  readonly known: number;
}

/** What the namespace needs from a chain's P2P host. Methods throw `Error` with op-node's message on failure. */
export interface P2PControl {
  isPeerId(s: string): boolean;
  self(): Promise<PeerInfo>;
  peers(connected: boolean): Promise<PeerDump>;
  peerStats(): Promise<PeerStats>;
  discoveryTable(): Promise<string[]>;
  blockPeer(id: string): Promise<void>;
  unblockPeer(id: string): Promise<void>;
  listBlockedPeers(): string[];
  blockAddr(ip: string): Promise<void>;
  unblockAddr(ip: string): Promise<void>;
  listBlockedAddrs(): string[];
  blockSubnet(ip: string, prefix: number): Promise<void>;
  unblockSubnet(ip: string, prefix: number): Promise<void>;
  listBlockedSubnets(): { ip: string; prefix: number }[];
  protectPeer(id: string): void;
  unprotectPeer(id: string): void;
  connectPeer(addr: string): Promise<void>;
  disconnectPeer(id: string): Promise<void>;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function isIp(s: string): boolean {
  const m = IPV4.exec(s);
  if (m !== null) return m.slice(1).every((x) => Number(x) <= 255);
  return /^[0-9a-fA-F:.]+$/.test(s) && s.includes(":");
}

/** Mask base64 → prefix length (contiguous ones only). */
export function maskToPrefix(mask: string): number | undefined {
  const b = Buffer.from(mask, "base64");
  if (b.length !== 4 && b.length !== 16) return undefined;
  let n = 0;
  let ended = false;
  for (const byte of b) {
    for (let i = 7; i >= 0; i--) {
      const bit = (byte >> i) & 1;
      if (bit === 1 && ended) return undefined;
      if (bit === 1) n++;
      else ended = true;
    }
  }
  return n;
}

/** Prefix length → op-node's mask text (4 bytes for IPv4, 16 for IPv6). */
export function prefixToMask(prefix: number, v6: boolean): string {
  const b = Buffer.alloc(v6 ? 16 : 4);
  for (let i = 0; i < prefix; i++) b[i >> 3] = (b[i >> 3] as number) | (0x80 >> (i & 7));
  return b.toString("base64");
}

export function subnetToJson(s: { ip: string; prefix: number }): SubnetJson {
  return { IP: s.ip, Mask: prefixToMask(s.prefix, s.ip.includes(":")) };
}

function argCount(params: unknown[], n: number): void {
  if (params.length < n) throw new InvalidParamsError(`missing value for required argument ${params.length}`);
  if (params.length > n) throw new InvalidParamsError(`too many arguments, want at most ${n}`);
}

function str(params: unknown[]): string {
  argCount(params, 1);
  const v = params[0];
  if (typeof v !== "string") throw new InvalidParamsError("invalid argument 0: expected a string");
  return v;
}

/** `[{IP, Mask}]` (op-node's form) or `["10.0.0.0/8"]` (CIDR, as the specification writes it). */
export function parseSubnet(params: unknown[]): { ip: string; prefix: number } {
  argCount(params, 1);
  const v = params[0];
  let ip: string | undefined;
  let prefix: number | undefined;
  if (typeof v === "string") {
    const [a, p] = v.split("/");
    ip = a;
    prefix = p === undefined || !/^\d+$/.test(p) ? undefined : Number(p);
  } else if (v !== null && typeof v === "object") {
    const o = v as { IP?: unknown; Mask?: unknown };
    if (typeof o.IP === "string") ip = o.IP;
    if (typeof o.Mask === "string") prefix = maskToPrefix(o.Mask);
  } else {
    throw new InvalidParamsError("invalid argument 0: expected a subnet");
  }
  if (ip === undefined || prefix === undefined || !isIp(ip) || prefix > (ip.includes(":") ? 128 : 32))
    throw new RpcError(-32000, "invalid request");
  return { ip, prefix };
}

async function serverError<T>(f: () => Promise<T> | T): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof RpcError) throw err;
    throw new RpcError(-32000, err instanceof Error ? err.message : String(err));
  }
}

export function createStackP2PMethods(p: P2PControl): MethodTable {
  const peerId = (params: unknown[]): string => {
    const id = str(params);
    if (!p.isPeerId(id)) throw new InvalidParamsError(`invalid argument 0: invalid peer ID ${JSON.stringify(id)}`);
    return id;
  };
  const ip = (params: unknown[]): string => {
    const a = str(params);
    if (a === "" || !isIp(a)) throw new RpcError(-32000, "invalid request");
    return a;
  };
  const none = (params: unknown[]): void => argCount(params, 0);
  return createMethodTable({
    stackp2p_self: async (params) => {
      none(params);
      return serverError(() => p.self());
    },
    stackp2p_peers: async (params) => {
      argCount(params, 1);
      if (typeof params[0] !== "boolean") throw new InvalidParamsError("invalid argument 0: expected a boolean");
      const connected = params[0];
      return serverError(() => p.peers(connected));
    },
    stackp2p_peerStats: async (params) => {
      none(params);
      return serverError(() => p.peerStats());
    },
    stackp2p_discoveryTable: async (params) => {
      none(params);
      return serverError(() => p.discoveryTable());
    },
    stackp2p_blockPeer: async (params) => {
      const id = peerId(params);
      await serverError(() => p.blockPeer(id));
      return null;
    },
    stackp2p_unblockPeer: async (params) => {
      const id = peerId(params);
      await serverError(() => p.unblockPeer(id));
      return null;
    },
    stackp2p_listBlockedPeers: async (params) => {
      none(params);
      return p.listBlockedPeers();
    },
    stackp2p_blockAddr: async (params) => {
      const a = ip(params);
      await serverError(() => p.blockAddr(a));
      return null;
    },
    stackp2p_unblockAddr: async (params) => {
      const a = ip(params);
      await serverError(() => p.unblockAddr(a));
      return null;
    },
    stackp2p_listBlockedAddrs: async (params) => {
      none(params);
      return p.listBlockedAddrs();
    },
    stackp2p_blockSubnet: async (params) => {
      const s = parseSubnet(params);
      await serverError(() => p.blockSubnet(s.ip, s.prefix));
      return null;
    },
    stackp2p_unblockSubnet: async (params) => {
      const s = parseSubnet(params);
      await serverError(() => p.unblockSubnet(s.ip, s.prefix));
      return null;
    },
    stackp2p_listBlockedSubnets: async (params) => {
      none(params);
      return p.listBlockedSubnets().map(subnetToJson);
    },
    stackp2p_protectPeer: async (params) => {
      const id = peerId(params);
      p.protectPeer(id);
      return null;
    },
    stackp2p_unprotectPeer: async (params) => {
      const id = peerId(params);
      p.unprotectPeer(id);
      return null;
    },
    stackp2p_connectPeer: async (params) => {
      const addr = str(params);
      await serverError(() => p.connectPeer(addr));
      return null;
    },
    stackp2p_disconnectPeer: async (params) => {
      const id = peerId(params);
      await serverError(() => p.disconnectPeer(id));
      return null;
    },
  });
}
