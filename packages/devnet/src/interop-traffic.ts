/**
 * Cross-chain message traffic for the interop devnet (`supernode-devnet --interop [--invalid-messages]`).
 *
 * Every `everyBlocks` blocks (of the first chain) it runs a round: each chain emits an initiating log (a call to the
 * devnet's log emitter, `el/interop-predeploys.ts`) for the next chain of the ring (901 → 902 → … → 901), and once
 * those are included, each destination executes its message (`CrossL2Inbox.validateMessage` naming the log's
 * identifier and payload hash). With `invalidEveryBlocks` it also sends, alone, one invalid executing message
 * (kinds rotating: wrong payload hash, unknown origin chain, expired, too early; destinations rotating) and then
 * sends nothing until the block that carries it is replaced (its receipt disappears) or `quietBlocks` pass, so no
 * valid message ever depends on a block the supernode invalidates.
 *
 * Transactions come from one dev account (anvil's mnemonic, index `senderIndex`, funded on every devnet L2) and go
 * to each chain's execution client over JSON-RPC (`eth_sendRawTransaction`), where the sequencer picks them up.
 */
import { type Address, type Clock, type Hash, type Hex, type Logger, systemClock } from "supernode/core";
import { CROSS_L2_INBOX, executingAccessList, LOG_EMITTER_ADDRESS } from "./el/interop-predeploys.js";
import {
  type ExecutingCall,
  INVALID_KINDS,
  type InitiatedMessage,
  type InvalidKind,
  emitLogCalldata,
  initiatingPayload,
  invalidExecuting,
  validExecuting,
  validateMessageCalldata,
} from "./interop-messages.js";
import { devAccount } from "./l1/dev-accounts.js";
import { HttpRpcClient } from "supernode/json-rpc";

export interface InteropTrafficChain {
  readonly chainId: bigint;
  /** The chain's execution client (JSON-RPC over HTTP). */
  readonly rpcUrl: string;
  readonly blockTime: number;
  readonly genesis: { readonly number: number; readonly timestamp: number };
}

export interface InteropTrafficOptions {
  /** At least two chains of one dependency set. */
  readonly chains: readonly InteropTrafficChain[];
  /** The interop activation timestamp; nothing is sent before activation + block time. */
  readonly activation: number;
  /** The dependency set's message expiry window (seconds). */
  readonly expiryWindow: number;
  /** A valid round every this many blocks (default 3). */
  readonly everyBlocks?: number;
  /** An invalid message every this many blocks (default: none). */
  readonly invalidEveryBlocks?: number;
  /** Blocks to wait for an invalid message's block to be replaced before sending again (default 30). */
  readonly quietBlocks?: number;
  /** Dev account that signs (default 9). */
  readonly senderIndex?: number;
  readonly pollMs?: number;
  /** A chain ID outside the dependency set (default 999). */
  readonly unknownChainId?: bigint;
}

export interface InteropTrafficStats {
  readonly rounds: number;
  /** Initiating logs included. */
  readonly initiated: number;
  /** Valid executing messages included. */
  readonly executed: number;
  readonly invalid: Readonly<Record<InvalidKind, number>>;
  /** Invalid messages whose block was later replaced (the receipt disappeared). */
  readonly invalidReplaced: number;
  /** Replaced invalid messages found back in the execution client's pool and cancelled. */
  readonly cancelled: number;
  readonly replacedByKind: Readonly<Record<InvalidKind, number>>;
  readonly lastInvalid?: InvalidSent;
  /** Every invalid message included, in order, with the block that first carried it. */
  readonly invalidSent: readonly InvalidSent[];
  readonly errors: number;
}

/** One invalid executing message as included: its kind, chain, transaction and the block that carried it. */
export interface InvalidSent {
  readonly kind: InvalidKind;
  readonly chainId: bigint;
  readonly txHash: Hash;
  readonly blockNumber: number;
  readonly blockHash: Hash;
}

interface RpcReceipt {
  readonly status: Hex;
  readonly blockHash: Hash;
  readonly blockNumber: Hex;
  readonly logs: ReadonlyArray<{ readonly address: Address; readonly logIndex: Hex }>;
}

interface Head {
  readonly number: number;
  readonly timestamp: number;
}

type AccessList = ReturnType<typeof executingAccessList>;

const HISTORY = 512;
const GAS = 200_000n;
const TIP = 1_000_000n;

class Chain {
  readonly rpc: HttpRpcClient;
  constructor(readonly spec: InteropTrafficChain) {
    this.rpc = new HttpRpcClient({ url: spec.rpcUrl, timeoutMs: 10_000 });
  }

  async head(): Promise<Head> {
    const b = await this.rpc.call<{ number: Hex; timestamp: Hex }>("eth_getBlockByNumber", ["latest", false]);
    return { number: Number(b.number), timestamp: Number(b.timestamp) };
  }

  async blockTimestamp(hash: Hash): Promise<number> {
    const b = await this.rpc.call<{ timestamp: Hex } | null>("eth_getBlockByHash", [hash, false]);
    if (b === null) throw new Error(`chain ${this.spec.chainId}: block ${hash} is gone`);
    return Number(b.timestamp);
  }

  receipt(hash: Hash): Promise<RpcReceipt | null> {
    return this.rpc.call<RpcReceipt | null>("eth_getTransactionReceipt", [hash]);
  }
}

function zeroInvalid(): Record<InvalidKind, number> {
  return Object.fromEntries(INVALID_KINDS.map((k) => [k, 0])) as Record<InvalidKind, number>;
}

export class InteropTraffic {
  readonly #opts: InteropTrafficOptions;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #chains: Chain[];
  readonly #history: InitiatedMessage[] = [];
  readonly #invalid = zeroInvalid();
  readonly #replacedByKind = zeroInvalid();
  readonly #abort = new AbortController();
  #loop: Promise<void> | undefined;
  #seq = 0;
  #rounds = 0;
  #initiated = 0;
  #executed = 0;
  #replaced = 0;
  #cancelled = 0;
  #errors = 0;
  #kindIndex = 0;
  #invalidSent = 0;
  readonly #invalidList: InvalidSent[] = [];

  constructor(opts: InteropTrafficOptions, deps: { logger: Logger; clock?: Clock }) {
    if (opts.chains.length < 2) throw new Error("interop traffic needs at least two chains");
    this.#opts = opts;
    this.#log = deps.logger.child({ component: "interop-traffic" });
    this.#clock = deps.clock ?? systemClock;
    this.#chains = opts.chains.map((c) => new Chain(c));
  }

  stats(): InteropTrafficStats {
    const last = this.#invalidList.at(-1);
    return {
      rounds: this.#rounds,
      initiated: this.#initiated,
      executed: this.#executed,
      invalid: { ...this.#invalid },
      invalidReplaced: this.#replaced,
      cancelled: this.#cancelled,
      replacedByKind: { ...this.#replacedByKind },
      ...(last === undefined ? {} : { lastInvalid: last }),
      invalidSent: [...this.#invalidList],
      errors: this.#errors,
    };
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    const every = this.#opts.everyBlocks ?? 3;
    const invalidEvery = this.#opts.invalidEveryBlocks;
    let lastRound: number | undefined;
    let lastInvalid: number | undefined;
    while (!signal.aborted) {
      try {
        const heads = await Promise.all(this.#chains.map((c) => c.head()));
        const ready = heads.every((h, i) => h.timestamp >= this.#opts.activation + this.#chains[i]!.spec.blockTime);
        const ref = heads[0]!.number;
        if (ready) {
          lastInvalid ??= ref;
          if (invalidEvery !== undefined && ref >= lastInvalid + invalidEvery) {
            await this.#invalidSlot(heads);
            lastInvalid = (await this.#chains[0]!.head()).number;
          } else if (lastRound === undefined || ref >= lastRound + every) {
            lastRound = ref;
            await this.#round();
          }
        }
      } catch (err) {
        if (signal.aborted) break;
        this.#errors++;
        this.#log.warn({ err: err instanceof Error ? err.message : String(err) }, "interop traffic: round failed");
        await this.#unstick().catch(() => {});
      }
      await this.#clock.sleep(this.#opts.pollMs ?? 500, signal).catch(() => {});
    }
  }

  /**
   * Signs and sends a call from the traffic account; returns the transaction hash. `replace` sends at that nonce
   * with doubled fees instead (a replacement of a transaction still in the pool).
   */
  async #send(c: Chain, to: Address, data: Hex, replace?: { nonce: number }, accessList?: AccessList): Promise<Hash> {
    const sender = devAccount(this.#opts.senderIndex ?? 9);
    const [nonce, gasPrice] = await Promise.all([
      replace === undefined
        ? c.rpc.call<Hex>("eth_getTransactionCount", [sender.address, "pending"]).then(Number)
        : Promise.resolve(replace.nonce),
      c.rpc.call<Hex>("eth_gasPrice", []),
    ]);
    const bump = replace === undefined ? 1n : 2n;
    const raw = await sender.account.signTransaction({
      type: "eip1559",
      chainId: Number(c.spec.chainId),
      nonce,
      to,
      data,
      ...(accessList === undefined ? {} : { accessList }),
      value: 0n,
      gas: GAS,
      maxFeePerGas: (BigInt(gasPrice) * 2n + TIP) * bump,
      maxPriorityFeePerGas: TIP * bump,
    });
    return c.rpc.call<Hash>("eth_sendRawTransaction", [raw]);
  }

  /**
   * Cancels a transaction whose block was replaced: the execution client put it back in its pool (as geth does on a
   * reorg) and the sequencer never includes it again, so it would hold back every later transaction of the traffic
   * account; a replacement at its nonce (an empty transfer to itself) takes its place.
   */
  async #cancel(c: Chain, tx: Hash, nonce: number): Promise<void> {
    const t = await c.rpc.call<{ blockHash: Hash | null } | null>("eth_getTransactionByHash", [tx]);
    if (t !== null && t.blockHash !== null) return; // included again: nothing to cancel
    // Sent whether or not the pool holds it yet: a real geth puts it back a moment after the reorg, and a
    // cancellation that took the nonce first makes geth drop it then.
    const self = devAccount(this.#opts.senderIndex ?? 9).address;
    const cancel = await this.#send(c, self, "0x", { nonce });
    await this.#included(c, cancel);
    this.#cancelled++;
    this.#log.info(
      { chain: c.spec.chainId.toString(10), tx, cancel },
      "interop traffic: replaced transaction cancelled",
    );
  }

  /**
   * After a failed round: where the traffic account's next transaction is stuck in a chain's pool (e.g. a "valid"
   * message whose block was invalidated anyway — its initiating block was later than it under load, or was itself
   * replaced — so the sequencer leaves it out for good), an empty transfer at that nonce takes its place.
   */
  async #unstick(): Promise<void> {
    const self = devAccount(this.#opts.senderIndex ?? 9).address;
    for (const c of this.#chains) {
      const [latest, pending] = await Promise.all(
        ["latest", "pending"].map((tag) => c.rpc.call<Hex>("eth_getTransactionCount", [self, tag]).then(Number)),
      );
      if (pending === undefined || latest === undefined || pending <= latest) continue;
      const cancel = await this.#send(c, self, "0x", { nonce: latest });
      await this.#included(c, cancel);
      this.#cancelled++;
      this.#log.info(
        { chain: c.spec.chainId.toString(10), nonce: latest, cancel },
        "interop traffic: stuck nonce cancelled",
      );
    }
  }

  /** Waits for the receipt of `tx` (throws after `blocks` blocks without it). */
  async #included(c: Chain, tx: Hash, blocks = 20): Promise<RpcReceipt> {
    const start = (await c.head()).number;
    for (;;) {
      const r = await c.receipt(tx);
      if (r !== null) {
        if (r.status !== "0x1") throw new Error(`chain ${c.spec.chainId}: transaction ${tx} reverted`);
        return r;
      }
      if ((await c.head()).number > start + blocks)
        throw new Error(`chain ${c.spec.chainId}: transaction ${tx} not included after ${blocks} blocks`);
      await this.#clock.sleep(this.#opts.pollMs ?? 500, this.#abort.signal);
    }
  }

  /** Executes a message on `dst` (`validateMessage` with the access list the CrossL2Inbox requires). */
  #execute(dst: Chain, call: ExecutingCall): Promise<Hash> {
    return this.#send(
      dst,
      CROSS_L2_INBOX,
      validateMessageCalldata(call),
      undefined,
      executingAccessList(call.id, call.msgHash),
    );
  }

  /** One valid message from every chain to the next one of the ring. */
  async #round(): Promise<void> {
    const n = this.#chains.length;
    const seq = this.#seq++;
    const initiated = await Promise.all(
      this.#chains.map(async (src, i) => {
        const dst = this.#chains[(i + 1) % n]!;
        const p = initiatingPayload(seq, src.spec.chainId, dst.spec.chainId);
        const tx = await this.#send(src, LOG_EMITTER_ADDRESS, emitLogCalldata(p));
        const r = await this.#included(src, tx);
        const log = r.logs.find((l) => l.address.toLowerCase() === LOG_EMITTER_ADDRESS);
        if (log === undefined) throw new Error(`chain ${src.spec.chainId}: no initiating log in ${tx}`);
        const m: InitiatedMessage = {
          chainId: src.spec.chainId,
          blockNumber: Number(r.blockNumber),
          logIndex: Number(log.logIndex),
          timestamp: await src.blockTimestamp(r.blockHash),
          payloadHash: p.payloadHash,
        };
        this.#remember(m);
        return m;
      }),
    );
    this.#initiated += initiated.length;
    await Promise.all(
      initiated.map(async (m, i) => {
        const dst = this.#chains[(i + 1) % n]!;
        const tx = await this.#execute(dst, validExecuting(m));
        await this.#included(dst, tx);
        this.#executed++;
      }),
    );
    this.#rounds++;
    this.#log.debug({ seq, messages: initiated.length }, "interop traffic: round done");
  }

  #remember(m: InitiatedMessage): void {
    this.#history.push(m);
    if (this.#history.length > HISTORY) this.#history.shift();
  }

  /** One invalid executing message, alone; then quiet until its block is replaced or `quietBlocks` pass. */
  async #invalidSlot(heads: readonly Head[]): Promise<void> {
    const n = this.#chains.length;
    const di = this.#invalidSent % n;
    const dst = this.#chains[di]!;
    const src = this.#chains[(di + 1) % n]!;
    const ctx = {
      history: this.#history.filter((m) => m.chainId === src.spec.chainId),
      headTimestamp: heads[di]!.timestamp,
      expiryWindow: this.#opts.expiryWindow,
      activation: this.#opts.activation,
      source: {
        chainId: src.spec.chainId,
        genesisNumber: src.spec.genesis.number,
        genesisTimestamp: src.spec.genesis.timestamp,
        blockTime: src.spec.blockTime,
      },
      unknownChainId: this.#opts.unknownChainId ?? 999n,
    };
    let kind: InvalidKind | undefined;
    let call: ReturnType<typeof invalidExecuting>;
    for (let k = 0; k < INVALID_KINDS.length && call === undefined; k++) {
      kind = INVALID_KINDS[(this.#kindIndex + k) % INVALID_KINDS.length]!;
      call = invalidExecuting(kind, ctx);
    }
    if (call === undefined || kind === undefined) return;
    // The kind index moves on only past what was sent, so a kind not possible yet (expired) comes next time.
    if (kind === INVALID_KINDS[this.#kindIndex]) this.#kindIndex = (this.#kindIndex + 1) % INVALID_KINDS.length;
    this.#invalidSent++;
    const tx = await this.#execute(dst, call);
    const r = await this.#included(dst, tx);
    const blockNumber = Number(r.blockNumber);
    const { nonce } = await dst.rpc.call<{ nonce: Hex }>("eth_getTransactionByHash", [tx]);
    this.#invalid[kind]++;
    this.#invalidList.push({ kind, chainId: dst.spec.chainId, txHash: tx, blockNumber, blockHash: r.blockHash });
    this.#log.info(
      { kind, chain: dst.spec.chainId.toString(10), block: blockNumber, tx },
      "interop traffic: invalid message sent",
    );
    const quiet = this.#opts.quietBlocks ?? 30;
    for (;;) {
      const gone = (await dst.receipt(tx)) === null;
      if (gone) {
        this.#replaced++;
        this.#replacedByKind[kind]++;
        // anything remembered from that block or later on that chain is gone with it
        for (let i = this.#history.length - 1; i >= 0; i--) {
          const m = this.#history[i]!;
          if (m.chainId === dst.spec.chainId && m.blockNumber >= blockNumber) this.#history.splice(i, 1);
        }
        this.#log.info(
          { kind, chain: dst.spec.chainId.toString(10), block: blockNumber },
          "interop traffic: invalid block replaced",
        );
        await this.#cancel(dst, tx, Number(nonce));
        return;
      }
      if ((await dst.head()).number >= blockNumber + quiet) return;
      await this.#clock.sleep(this.#opts.pollMs ?? 500, this.#abort.signal);
    }
  }
}
