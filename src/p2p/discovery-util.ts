/** Helpers of discovery.ts: the ENR's IP, the `p2p.netrestrict` list, a crypto-seeded shuffle. */
import { randomInt } from "node:crypto";
import { BlockList, isIP } from "node:net";
import type { P2pConfig } from "../config/types.js";

/** The ENR's IP: `p2p.advertise.ip` (resolved), else a specific listen IP, else 127.0.0.1 (geth's fallback). */
export async function enrIp(p2p: P2pConfig, resolve: (host: string) => Promise<string>): Promise<string> {
  if (p2p.advertiseIp !== undefined) return isIP(p2p.advertiseIp) === 0 ? resolve(p2p.advertiseIp) : p2p.advertiseIp;
  if (p2p.listenIp !== "0.0.0.0" && p2p.listenIp !== "::" && isIP(p2p.listenIp) !== 0) return p2p.listenIp;
  return "127.0.0.1";
}

export function netrestrict(cidrs: readonly string[]): BlockList | undefined {
  if (cidrs.length === 0) return undefined;
  const list = new BlockList();
  for (const c of cidrs) {
    const [ip, bits] = c.trim().split("/") as [string, string | undefined];
    const v6 = isIP(ip) === 6;
    list.addSubnet(ip, Number(bits ?? (v6 ? 128 : 32)), v6 ? "ipv6" : "ipv4");
  }
  return list;
}

export function shuffle<T>(a: T[]): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [a[i], a[j]] = [a[j] as T, a[i] as T];
  }
}
