/**
 * ENR records through `@chainsafe/enr` 5: the local record (`id` v4, `secp256k1`, `ip`/`ip6`, `tcp`, `udp`,
 * `opstack`), bootnode strings (`enr:` as-is, `enode://` turned into an unsigned seq-0 record as geth does), and the
 * chain filter plus the dial address of a discovered record (op-node's `FilterEnodes` and `enrToAddrInfo`).
 */
import { ENR, SignableENR } from "@chainsafe/enr";
import { publicKeyFromRaw } from "@libp2p/crypto/keys";
import { peerIdFromPublicKey } from "@libp2p/peer-id";
import { isIP } from "node:net";
import { parseEnode } from "../protocol/p2p/bootnodes.js";
import { encodeOpStackEntry, OPSTACK_ENR_KEY, opStackEntryMatches } from "../protocol/p2p/enr-opstack.js";

export interface LocalRecord {
  readonly ip: string;
  readonly tcp: number;
  readonly udp: number;
  readonly seq: bigint;
}

/** The local record, signed lazily with the node key (the same secp256k1 key as the libp2p identity). */
export function localEnr(secretKey: Uint8Array, chainId: bigint, r: LocalRecord): SignableENR {
  const enr = SignableENR.createV4(secretKey, { [OPSTACK_ENR_KEY]: encodeOpStackEntry(chainId) });
  setAddress(enr, r);
  enr.seq = r.seq;
  return enr;
}

/** Writes ip/tcp/udp (bumping the record's seq, as any change must). */
export function setAddress(enr: SignableENR, r: { ip: string; tcp: number; udp: number }): void {
  if (isIP(r.ip) === 6) {
    enr.ip6 = r.ip;
    enr.tcp6 = r.tcp;
    enr.udp6 = r.udp;
  } else {
    enr.ip = r.ip;
    enr.tcp = r.tcp;
    enr.udp = r.udp;
  }
}

/** What identifies the record's content (a changed content gets a higher seq after a restart). */
export function recordDigest(chainId: bigint, r: { ip: string; tcp: number; udp: number }): string {
  return `${chainId}|${r.ip}|${r.tcp}|${r.udp}`;
}

/**
 * A bootnode string as a record. `resolve` turns an enode host name into an IP (op-node resolves enode host names
 * at startup; IPs pass through unchanged).
 */
export async function bootnodeEnr(s: string, resolve: (host: string) => Promise<string>): Promise<ENR> {
  if (s.startsWith("enr:")) return ENR.decodeTxt(s);
  const e = parseEnode(s);
  const ip = isIP(e.host) === 0 ? await resolve(e.host) : e.host;
  const v6 = isIP(ip) === 6;
  const kvs = new Map<string, Uint8Array>([
    ["id", new TextEncoder().encode("v4")],
    ["secp256k1", e.publicKey],
    [v6 ? "ip6" : "ip", ipBytes(ip)],
    [v6 ? "udp6" : "udp", portBytes(e.udp)],
  ]);
  if (e.tcp !== 0) kvs.set(v6 ? "tcp6" : "tcp", portBytes(e.tcp));
  return new ENR(kvs, 0n, new Uint8Array(0));
}

function ipBytes(ip: string): Uint8Array {
  if (isIP(ip) === 4) return Uint8Array.from(ip.split(".").map(Number));
  const full = expandV6(ip);
  const out = new Uint8Array(16);
  full.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

function expandV6(ip: string): number[] {
  const [head, tail] = ip.split("::") as [string, string | undefined];
  const h = head === "" ? [] : head.split(":").map((x) => Number.parseInt(x, 16));
  const t = tail === undefined || tail === "" ? [] : tail.split(":").map((x) => Number.parseInt(x, 16));
  return tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

function portBytes(port: number): Uint8Array {
  return Uint8Array.from([port >> 8, port & 0xff]);
}

/** op-node's filter: the record has an `opstack` entry that decodes to our chain ID and version 0. */
export function enrOnChain(enr: ENR, chainId: bigint): boolean {
  const v = enr.kvs.get(OPSTACK_ENR_KEY);
  return v instanceof Uint8Array && opStackEntryMatches(v, chainId);
}

export interface DialTarget {
  readonly peerId: string;
  /** `/ip4|ip6/<ip>/tcp/<port>` */
  readonly addr: string;
  readonly ip: string;
}

/** Where to dial a discovered record over libp2p; undefined without an IP or a non-zero TCP port. */
export function dialTarget(enr: ENR): DialTarget | undefined {
  const ip = enr.ip ?? enr.ip6;
  const tcp = enr.ip !== undefined ? enr.tcp : enr.tcp6;
  if (ip === undefined || tcp === undefined || tcp === 0) return undefined;
  const peerId = peerIdFromPublicKey(publicKeyFromRaw(enr.publicKey)).toString();
  return { peerId, addr: `/${isIP(ip) === 6 ? "ip6" : "ip4"}/${ip}/tcp/${tcp}`, ip };
}
