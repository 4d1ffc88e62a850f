/**
 * The devnet L1's beacon API as a consensus client answers it, in front of anvil. Anvil serves
 * `/eth/v1/beacon/genesis` and `/eth/v1/beacon/blobs/{block_id}` with `block_id` an *execution* block number or hash,
 * but no `/eth/v1/config/spec`; a beacon client such as op-node's reads the genesis time and `SECONDS_PER_SLOT`,
 * computes the slot of an L1 block's timestamp and asks for `/eth/v1/beacon/blobs/{slot}`. This server answers:
 *
 * - `GET /eth/v1/config/spec`: `SECONDS_PER_SLOT` (the L1 block time) and `SLOTS_PER_EPOCH`, as decimal strings;
 * - `GET /eth/v1/beacon/blobs/{slot}` (a decimal slot): the blobs of the L1 block in that slot (the one whose
 *   timestamp is in `[genesis + slot·s, genesis + (slot+1)·s)`; anvil may put two blocks in one slot, then both), 404
 *   `{"code":404,"message":"…"}` for a slot without a block, as a beacon node answers a missed slot;
 * - everything else (genesis, `blobs/{hash}`, `head`, …) passed to anvil unchanged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Hex } from "supernode/core";

export interface BeaconApiOptions {
  /** Anvil's beacon URL (its HTTP port). */
  readonly anvilUrl: string;
  readonly secondsPerSlot: number;
  readonly slotsPerEpoch: number;
}

export interface BeaconApi {
  readonly url: string;
  close(): Promise<void>;
}

type Block = { number: Hex; timestamp: Hex } | null;

/** Starts the beacon API on a free loopback port. */
export async function startBeaconApi(o: BeaconApiOptions): Promise<BeaconApi> {
  const genesisTime = await readGenesisTime(o.anvilUrl);
  const server: Server = createServer((req, res) => {
    handle(o, genesisTime, req, res).catch((err: unknown) => {
      send(res, 500, { code: 500, message: `internal error: ${(err as Error).message}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(o: BeaconApiOptions, genesisTime: number, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? "/", "http://beacon");
  if (req.method !== "GET") return send(res, 405, { code: 405, message: "method not allowed" });
  if (url.pathname === "/eth/v1/config/spec") {
    const data = { SECONDS_PER_SLOT: String(o.secondsPerSlot), SLOTS_PER_EPOCH: String(o.slotsPerEpoch) };
    return send(res, 200, { data });
  }
  const slot = /^\/eth\/v1\/beacon\/blobs\/(\d+)$/.exec(url.pathname)?.[1];
  if (slot === undefined) return pass(o.anvilUrl, url, res);
  const from = genesisTime + Number(slot) * o.secondsPerSlot;
  const numbers = await blocksInWindow(o.anvilUrl, from, from + o.secondsPerSlot);
  if (numbers.length === 0) return send(res, 404, { code: 404, message: `no block in slot ${slot}` });
  const data: unknown[] = [];
  for (const n of numbers) {
    const r = await fetch(`${o.anvilUrl}/eth/v1/beacon/blobs/${n}${url.search}`, { headers: jsonAccept });
    if (!r.ok) return send(res, r.status, await r.json().catch(() => ({ code: r.status, message: "anvil" })));
    data.push(...((await r.json()) as { data: unknown[] }).data);
  }
  return send(res, 200, { execution_optimistic: false, finalized: false, data });
}

const jsonAccept = { accept: "application/json" };

async function pass(anvilUrl: string, url: URL, res: ServerResponse) {
  const r = await fetch(`${anvilUrl}${url.pathname}${url.search}`, { headers: jsonAccept });
  res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" });
  res.end(Buffer.from(await r.arrayBuffer()));
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readGenesisTime(anvilUrl: string): Promise<number> {
  const r = await fetch(`${anvilUrl}/eth/v1/beacon/genesis`, { headers: jsonAccept });
  const t = Number(((await r.json()) as { data?: { genesis_time?: string } }).data?.genesis_time);
  if (!r.ok || !Number.isSafeInteger(t)) throw new Error(`anvil's beacon genesis unreadable (HTTP ${r.status})`);
  return t;
}

/** The numbers of the L1 blocks with `from <= timestamp < to` (timestamps rise with the number: binary search). */
async function blocksInWindow(anvilUrl: string, from: number, to: number): Promise<number[]> {
  const head = await block(anvilUrl, "latest");
  if (head === null) return [];
  const time = async (n: number) => Number((await block(anvilUrl, `0x${n.toString(16)}`))?.timestamp ?? 0);
  let lo = 0;
  let hi = Number(head.number) + 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((await time(mid)) < from) lo = mid + 1;
    else hi = mid;
  }
  const out: number[] = [];
  for (let n = lo; n <= Number(head.number) && (await time(n)) < to; n++) out.push(n);
  return out;
}

async function block(anvilUrl: string, tag: string): Promise<Block> {
  const r = await fetch(anvilUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBlockByNumber", params: [tag, false] }),
  });
  return ((await r.json()) as { result: Block }).result;
}
