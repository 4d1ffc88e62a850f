/**
 * Workarounds for `@chainsafe/discv5` 11.0.0 (ADR 0071), each installed once per process: finished lookups' timers
 * unref'd, already-verified records not verified again, and the bound port of the UDP socket read back (from the
 * transport the service made, see `transportOf`). The inbound rate limiter's fixes are in discv5-limits.ts.
 */
import { type Discv5, Lookup, type UDPTransportService } from "@chainsafe/discv5";
import { ENR } from "@chainsafe/enr";
import type { Socket } from "node:dgram";

/**
 * discv5 11 clears a lookup's 60 s timeout only when the lookup times out or is stopped, not when it finishes on its
 * own, so every finished lookup keeps the process alive for up to a minute after the service stopped. The timeout
 * only bounds a lookup; unref it (once per process).
 */
export function unrefLookupTimeouts(): void {
  const proto = Lookup.prototype as unknown as { start(): void; __unrefTimeout?: true };
  if (proto.__unrefTimeout) return;
  const start = proto.start;
  proto.start = function (this: { timeout?: { unref?: () => void } }) {
    start.call(this);
    this.timeout?.unref?.();
  };
  proto.__unrefTimeout = true;
}

/**
 * discv5 11 decodes every record of every NODES response through `ENR.decodeFromValues`, which verifies the
 * secp256k1 signature (≈ 1–2 ms in JS). Lookups return the same records again and again, so with 16 chains this
 * verification was most of discovery's CPU (ADR 0071). This wraps it with a cache of records already verified,
 * keyed by their exact bytes (a changed or forged record has other bytes and is verified). Installed once per process.
 */
export function installVerifiedRecordCache(max = 8192): void {
  const cls = ENR as unknown as { decodeFromValues(v: Uint8Array[]): ENR; __verifiedCache?: true };
  if (cls.__verifiedCache) return;
  const decode = cls.decodeFromValues.bind(ENR);
  const cache = new Map<string, ENR>();
  cls.decodeFromValues = (values: Uint8Array[]): ENR => {
    const key = values.map((v) => Buffer.from(v).toString("base64")).join(".");
    const hit = cache.get(key);
    if (hit !== undefined) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const enr = decode(values);
    cache.set(key, enr);
    if (cache.size > max) cache.delete(cache.keys().next().value as string);
    return enr;
  };
  cls.__verifiedCache = true;
}

/** The port the discv5 UDP socket is bound to (the library keeps the socket private). */
export function boundPort(transport: UDPTransportService): number {
  const t = transport as unknown as { ip4?: { socket?: Socket }; ip6?: { socket?: Socket } };
  const socket = t.ip4?.socket ?? t.ip6?.socket;
  if (socket === undefined) throw new Error("discovery UDP socket is not bound");
  return socket.address().port;
}

/** The UDP transport the service made for itself (made by the library so that it carries the rate limiter). */
export function transportOf(dv5: Discv5): UDPTransportService {
  return dv5.sessionService.transport as UDPTransportService;
}
