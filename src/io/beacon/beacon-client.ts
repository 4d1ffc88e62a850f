import { hexToBytes, isHex } from "../../core/codec/hex.js";
import { DecodeError, TemporaryError } from "../../core/errors/supernode-error.js";
import type { Logger } from "../../core/logger.js";
import type { Clock } from "../../core/time/clock.js";
import type { L1BlockRef } from "../../core/types/block-ref.js";
import type { Hash } from "../../core/types/primitives.js";
import { LruCache } from "../common/lru.js";
import { DEFAULT_BEACON_MAX_RESPONSE_BYTES } from "../common/response-limit.js";
import { BLOB_SIZE, blobToVersionedHash, commitmentToVersionedHash, verifyBlobProof } from "./kzg.js";

export interface BeaconClientOptions {
  /** `--l1.beacon`. */
  readonly url: string;
  /** `--l1.beacon-fallbacks`: tried, in order, for blobs the primary lacks or serves wrongly. */
  readonly fallbacks?: readonly string[];
  readonly timeoutMs?: number;
  /**
   * How blocks are addressed in beacon URLs: `slot` (computed from genesis time and SECONDS_PER_SLOT), `el` (the
   * EL block hash, which anvil's beacon endpoints accept), or `auto`: `slot` when the endpoint serves
   * `/eth/v1/config/spec`, otherwise `el`.
   */
  readonly blockIdMode?: "auto" | "slot" | "el";
  /** Used when the endpoint lacks `config/spec` (default 12 s). */
  readonly secondsPerSlot?: number;
  /** Verified blobs kept by versioned hash (shared by every chain). */
  readonly cacheBlobs?: number;
  /** `--l1.beacon.max-response-size`: bound on one response body (default 32 MiB, see response-limit.ts). */
  readonly maxResponseBytes?: number;
}

export interface BeaconClientDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  /** Called for every HTTP request sent (endpoint index 0 = primary). */
  readonly onRequest?: (e: { endpoint: number; path: string; status: number }) => void;
  /** Called for every response aborted for exceeding `maxResponseBytes`. */
  readonly onResponseTooLarge?: (e: { endpoint: number; path: string }) => void;
  /** Called for every failed beacon request or rejected answer, by kind (`supernode_beacon_errors_total`). */
  readonly onError?: (kind: BeaconErrorKind) => void;
}

/**
 * What went wrong with the beacon endpoints: `network` (no answer, timeout), `http_error` (a status other than the
 * "not here" ones), `decode` (a body that is not the expected JSON), `too_large` (above the response bound),
 * `invalid_blob` (malformed, unrequested or failing KZG verification), `unavailable` (a blob at no endpoint),
 * `genesis` (genesis time unavailable).
 */
export const BEACON_ERROR_KINDS = [
  "network",
  "http_error",
  "decode",
  "too_large",
  "invalid_blob",
  "unavailable",
  "genesis",
] as const;
export type BeaconErrorKind = (typeof BEACON_ERROR_KINDS)[number];

function errorKind(err: unknown): BeaconErrorKind {
  if (err instanceof DecodeError) return "decode";
  const code = (err as { code?: unknown }).code;
  if (code === "BEACON_HTTP") return "http_error";
  if (code === "BEACON_RESPONSE_TOO_LARGE") return "too_large";
  return "network";
}

export interface BlobRef {
  readonly index: number;
  readonly hash: Hash;
}

interface Timing {
  readonly genesisTime: number;
  readonly secondsPerSlot: number;
  readonly mode: "slot" | "el";
}

type Json = Record<string, unknown>;

/**
 * The beacon-node client shared by all chains: blob retrieval with KZG verification. A blob is returned only after
 * its KZG commitment was recomputed (or its sidecar proof verified) and hashes to the requested versioned hash;
 * anything else is discarded and the next endpoint is tried.
 */
export class BeaconClient {
  private readonly endpoints: readonly string[];
  private timing: Promise<Timing> | undefined;
  private readonly cache: LruCache<Hash, Uint8Array>;
  private readonly inflight = new Map<string, Promise<Uint8Array[]>>();

  private constructor(
    private readonly opts: BeaconClientOptions,
    private readonly deps: BeaconClientDeps,
  ) {
    this.endpoints = [opts.url, ...(opts.fallbacks ?? [])].map((u) => u.replace(/\/+$/, ""));
    this.cache = new LruCache(opts.cacheBlobs ?? 64);
  }

  static create(opts: BeaconClientOptions, deps: BeaconClientDeps): BeaconClient {
    return new BeaconClient(opts, deps);
  }

  /** Genesis time, slot duration and block addressing mode (fetched once, retried after a failure). */
  async getTiming(): Promise<Timing> {
    if (this.timing === undefined) {
      this.timing = this.loadTiming();
      this.timing.catch(() => {
        this.timing = undefined;
      });
    }
    return this.timing;
  }

  /** The beacon slot of an L1 block timestamp. */
  async slotOf(timestamp: number): Promise<number> {
    const t = await this.getTiming();
    const delta = timestamp - t.genesisTime;
    if (delta < 0 || delta % t.secondsPerSlot !== 0) {
      throw new TemporaryError("BEACON_SLOT", "L1 block time is not on a beacon slot boundary", {
        timestamp,
        genesisTime: t.genesisTime,
        secondsPerSlot: t.secondsPerSlot,
      });
    }
    return delta / t.secondsPerSlot;
  }

  /** The blobs with the given versioned hashes from block `ref`, in the order of `hashes`, each KZG-verified. */
  async getBlobs(ref: L1BlockRef, hashes: readonly BlobRef[]): Promise<Uint8Array[]> {
    if (hashes.length === 0) return [];
    const key = `${ref.hash}:${hashes.map((h) => `${h.index}/${h.hash}`).join(",")}`;
    const existing = this.inflight.get(key);
    if (existing !== undefined) return existing;
    const p = this.fetchBlobs(ref, hashes).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async fetchBlobs(ref: L1BlockRef, hashes: readonly BlobRef[]): Promise<Uint8Array[]> {
    const found = new Map<Hash, Uint8Array>();
    for (const h of hashes) {
      const c = this.cache.get(h.hash.toLowerCase() as Hash);
      if (c !== undefined) found.set(h.hash.toLowerCase() as Hash, c);
    }
    const missing = () => hashes.filter((h) => !found.has(h.hash.toLowerCase() as Hash));
    if (missing().length > 0) {
      const t = await this.getTiming();
      const blockId = t.mode === "el" ? ref.hash : String(await this.slotOf(ref.timestamp));
      for (let e = 0; e < this.endpoints.length && missing().length > 0; e++) {
        try {
          await this.fetchFrom(e, blockId, missing(), found);
        } catch (err) {
          this.deps.onError?.(errorKind(err));
          this.deps.logger.warn({ endpoint: e, block: ref.number, err: String(err) }, "beacon endpoint failed");
        }
      }
    }
    const still = missing();
    if (still.length > 0) {
      this.deps.onError?.("unavailable");
      throw new TemporaryError(
        "BLOB_NOT_FOUND",
        "blobs not available (or failed verification) at any beacon endpoint",
        {
          block: ref.hash,
          missing: still.map((h) => h.hash),
        },
      );
    }
    return hashes.map((h) => found.get(h.hash.toLowerCase() as Hash) as Uint8Array);
  }

  /** Tries `blobs/{id}` then `blob_sidecars/{id}` on one endpoint; verified blobs go into `found`. */
  private async fetchFrom(e: number, blockId: string, want: readonly BlobRef[], found: Map<Hash, Uint8Array>) {
    const wanted = new Set(want.map((h) => h.hash.toLowerCase()));
    const q = want.map((h) => h.hash).join(",");
    const res = await this.get(e, `/eth/v1/beacon/blobs/${blockId}?versioned_hashes=${q}`);
    if (res.status === 200) {
      const data = (res.body as Json | undefined)?.data;
      if (!Array.isArray(data)) throw new DecodeError("beacon blobs response has no data array");
      for (const item of data) {
        const blob = parseBlob(item);
        if (blob === undefined) continue;
        let vh: Hash;
        try {
          vh = blobToVersionedHash(blob);
        } catch {
          this.deps.onError?.("invalid_blob");
          this.deps.logger.warn({ endpoint: e }, "beacon returned a malformed blob");
          continue;
        }
        if (wanted.has(vh)) this.accept(vh, blob, found);
        else {
          this.deps.onError?.("invalid_blob");
          this.deps.logger.warn({ endpoint: e, hash: vh }, "beacon returned a blob that matches no requested hash");
        }
      }
      if (want.every((h) => found.has(h.hash.toLowerCase() as Hash))) return;
    } else if (
      res.status !== 404 &&
      res.status !== 400 &&
      res.status !== 405 &&
      res.status !== 410 &&
      res.status !== 501
    ) {
      throw new TemporaryError("BEACON_HTTP", `beacon blobs: HTTP ${res.status}`, { endpoint: e });
    }
    // Older endpoint: sidecars with commitment and proof.
    const indices = want.map((h) => h.index).join(",");
    const sc = await this.get(e, `/eth/v1/beacon/blob_sidecars/${blockId}?indices=${indices}`);
    if (sc.status !== 200) return;
    const data = (sc.body as Json | undefined)?.data;
    if (!Array.isArray(data)) throw new DecodeError("beacon blob_sidecars response has no data array");
    for (const item of data as Json[]) {
      const blob = parseBlob(item?.blob);
      const commitment = parseBytes(item?.kzg_commitment, 48);
      const proof = parseBytes(item?.kzg_proof, 48);
      if (blob === undefined || commitment === undefined || proof === undefined) continue;
      const vh = commitmentToVersionedHash(commitment);
      const target = want.find((h) => h.hash.toLowerCase() === vh && String(h.index) === String(item.index));
      if (target === undefined) continue;
      if (!verifyBlobProof(blob, commitment, proof)) {
        this.deps.onError?.("invalid_blob");
        this.deps.logger.warn({ endpoint: e, index: item.index }, "blob sidecar failed KZG proof verification");
        continue;
      }
      this.accept(vh, blob, found);
    }
  }

  private accept(vh: Hash, blob: Uint8Array, found: Map<Hash, Uint8Array>): void {
    found.set(vh, blob);
    this.cache.set(vh, blob);
  }

  private async loadTiming(): Promise<Timing> {
    const g = await this.getAny("/eth/v1/beacon/genesis");
    const genesisTime = Number((g.body as { data?: { genesis_time?: unknown } })?.data?.genesis_time);
    if (g.status !== 200 || !Number.isSafeInteger(genesisTime)) {
      this.deps.onError?.("genesis");
      throw new TemporaryError("BEACON_GENESIS", `beacon genesis unavailable (HTTP ${g.status})`);
    }
    const s = await this.getAny("/eth/v1/config/spec");
    const sps = Number((s.body as { data?: { SECONDS_PER_SLOT?: unknown } })?.data?.SECONDS_PER_SLOT);
    const hasSpec = s.status === 200 && Number.isSafeInteger(sps) && sps > 0;
    const modeOpt = this.opts.blockIdMode ?? "auto";
    const mode = modeOpt === "auto" ? (hasSpec ? "slot" : "el") : modeOpt;
    const secondsPerSlot = hasSpec ? sps : (this.opts.secondsPerSlot ?? 12);
    if (!hasSpec) {
      this.deps.logger.info(
        { secondsPerSlot, mode },
        "beacon endpoint lacks config/spec; using the configured slot time and addressing blocks by EL hash",
      );
    }
    return { genesisTime, secondsPerSlot, mode };
  }

  /** GET on the first endpoint that answers (genesis and spec are the same everywhere). */
  private async getAny(path: string): Promise<{ status: number; body: unknown }> {
    let last: { status: number; body: unknown } = { status: 0, body: undefined };
    for (let e = 0; e < this.endpoints.length; e++) {
      try {
        last = await this.get(e, path);
        if (last.status === 200) return last;
      } catch (err) {
        this.deps.logger.debug({ endpoint: e, path, err: String(err) }, "beacon request failed");
      }
    }
    return last;
  }

  private async get(e: number, path: string): Promise<{ status: number; body: unknown }> {
    const url = `${this.endpoints[e]}${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new TemporaryError("BEACON_NETWORK", `beacon request failed: ${(err as Error).message}`, { endpoint: e });
    }
    const route = path.split("?")[0] ?? path;
    const limit =
      this.opts.maxResponseBytes === 0
        ? Number.POSITIVE_INFINITY
        : (this.opts.maxResponseBytes ?? DEFAULT_BEACON_MAX_RESPONSE_BYTES);
    let text: string;
    try {
      text = await readBounded(res, limit);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) {
        throw new TemporaryError("BEACON_NETWORK", `beacon request failed: ${(err as Error).message}`, { endpoint: e });
      }
      this.deps.onResponseTooLarge?.({ endpoint: e, path: route });
      throw new TemporaryError(
        "BEACON_RESPONSE_TOO_LARGE",
        `beacon ${route}: response larger than the limit of ${limit} bytes; aborted`,
        { endpoint: e, limit },
      );
    }
    this.deps.onRequest?.({ endpoint: e, path: route, status: res.status });
    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, body };
  }
}

class BodyTooLarge extends Error {}

/**
 * Reads a fetch body as UTF-8 text, at most `limit` bytes: a larger announced `content-length` is refused before
 * reading, and the stream is cancelled (the connection closed) as soon as more arrives.
 */
async function readBounded(res: Response, limit: number): Promise<string> {
  const announced = Number(res.headers.get("content-length") ?? Number.NaN);
  if (announced > limit) {
    await res.body?.cancel().catch(() => {});
    throw new BodyTooLarge();
  }
  if (res.body === null) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      chunks.length = 0;
      await reader.cancel().catch(() => {});
      throw new BodyTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseBytes(v: unknown, size: number): Uint8Array | undefined {
  if (!isHex(v) || v.length !== 2 + size * 2) return undefined;
  return hexToBytes(v);
}

function parseBlob(v: unknown): Uint8Array | undefined {
  return parseBytes(v, BLOB_SIZE);
}
