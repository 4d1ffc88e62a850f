import { type Address, bytesToHex, type Hash, type Hex, hexToBytes } from "supernode/core";
import { keccak, logsBloom, rlpEncodeBytes, rlpEncodeListRaw, uintToBytes } from "supernode/protocol";
import { type L1FeeParams, daFootprint, l1FeeFor, operatorFee, parseL1FeeParams } from "./fees.js";
import { evmBlockEnv } from "./evm/block-env.js";
import type { CallTracer } from "./evm/call-tracer.js";
import { type EvmOutcome, EvmSession } from "./evm/evm-session.js";
import { accessListOf, floorGasOf, intrinsicGasOf, MAX_TX_GAS, txGasUsed } from "./evm/gas.js";
import { type AppliedAuthorizations, applyAuthorizations } from "./evm/authorizations.js";
import { applySystemCalls } from "./evm/system-contracts.js";
import { type LedgerState, LedgerWriter } from "./ledger.js";
import type { L1FeeFields, SimLog, SimReceipt, SimTx } from "./types.js";

export { MESSAGE_PASSED_TOPIC, MESSAGE_PASSER_ADDRESS, MESSAGE_PASSER_GAS } from "./evm/message-passer.js";

export const L1_BLOCK_ADDRESS: Address = "0x4200000000000000000000000000000000000015";
export const BASE_FEE_VAULT: Address = "0x4200000000000000000000000000000000000019";
export const L1_FEE_VAULT: Address = "0x420000000000000000000000000000000000001a";
export const OPERATOR_FEE_VAULT: Address = "0x420000000000000000000000000000000000001b";

export interface BlockContext {
  readonly chainId: bigint;
  readonly number: number;
  readonly timestamp: number;
  readonly baseFee: bigint;
  readonly coinbase: Address;
  readonly gasLimit: bigint;
  readonly regolith: boolean;
  readonly canyon: boolean;
  readonly fjord: boolean;
  readonly isthmus: boolean;
  readonly jovian: boolean;
  /** EVM rules (absent: Paris/Shanghai by `canyon`, no Ecotone, Karst). */
  readonly ecotone?: boolean;
  readonly karst?: boolean;
  /** Interop (Lagoon): the interop predeploys run (evm/native-predeploys.ts). */
  readonly lagoon?: boolean;
  readonly prevRandao?: Hash;
  /** BLOCKHASH lookups (absent: every earlier block's hash is unknown). */
  readonly blockHash?: (n: number) => Hash | undefined;
}

interface TransferResult {
  readonly status: 0 | 1;
  readonly logs: SimLog[];
  readonly extraGas: bigint;
}

export type ApplyResult = { ok: true } | { ok: false; reason: string };

/** The bloom of every receipt without logs (most of them), shared: blooms are never written after they are made. */
const EMPTY_BLOOM = new Uint8Array(256);

/** Executes the transactions of one block on a copy of the parent's ledger (no EVM: value moves only). */
export class BlockExecutor {
  readonly #w: LedgerWriter;
  readonly #ctx: BlockContext;
  readonly receipts: SimReceipt[] = [];
  readonly txs: SimTx[] = [];
  gasUsed = 0n;
  blobGasUsed = 0n;
  #l1: L1FeeParams | undefined;
  #l1Info: Hex | undefined;
  #evm: EvmSession | undefined;
  /** The call tracer of the transaction being applied (debug_traceTransaction re-executes with one). */
  #tracer: CallTracer | undefined;

  constructor(parent: LedgerState, ctx: BlockContext) {
    this.#w = new LedgerWriter(parent);
    this.#ctx = ctx;
  }

  get l1FeeParams(): L1FeeParams | undefined {
    return this.#l1;
  }

  /** Applies a transaction if it is valid in this block; an invalid one leaves the state untouched. */
  apply(tx: SimTx, tracer?: CallTracer): Promise<ApplyResult> {
    this.#tracer = tracer;
    return tx.deposit !== undefined ? this.#applyDeposit(tx) : this.#applyUser(tx);
  }

  get #gasRules() {
    return { shanghai: this.#ctx.canyon, prague: this.#ctx.isthmus };
  }

  /**
   * Contract creations and calls to code run in the EVM (the stateful native predeploys hold stand-in code:
   * evm/native-predeploys.ts); value transfers do not.
   */
  #usesEvm(tx: SimTx): boolean {
    return tx.to === null || this.#w.code(tx.to) !== undefined;
  }

  #session(): EvmSession {
    const c = this.#ctx;
    this.#evm ??= new EvmSession(
      this.#w,
      evmBlockEnv(
        {
          chainId: c.chainId,
          number: c.number,
          timestamp: c.timestamp,
          coinbase: c.coinbase,
          gasLimit: c.gasLimit,
          baseFee: c.baseFee,
          prevRandao: c.prevRandao ?? `0x${"00".repeat(32)}`,
          blockHash: c.blockHash ?? (() => undefined),
        },
        { ...c, ecotone: c.ecotone ?? false, karst: c.karst ?? false },
        () => this.#l1Info,
      ),
    );
    return this.#evm;
  }

  /** The block-start system calls (EIP-4788 from Ecotone, EIP-2935 from Isthmus), before the first transaction. */
  beginBlock(parentHash: Hash, parentBeaconBlockRoot: Hash | undefined): void {
    const c = this.#ctx;
    applySystemCalls(
      this.#w,
      { ...c, parentHash, parentBeaconBlockRoot },
      { ecotone: c.ecotone ?? false, isthmus: c.isthmus },
    );
  }

  #runEvm(tx: SimTx, gas: bigint, gasPrice: bigint, warm?: readonly Address[]): Promise<EvmOutcome> {
    const accessList = accessListOf(tx);
    return this.#session().run(
      { from: tx.from, to: tx.to, value: tx.value, input: tx.input, gas, gasPrice, accessList, warm },
      this.#tracer === undefined ? { keep: true } : { keep: true, tracer: this.#tracer },
    );
  }

  async #applyDeposit(tx: SimTx): Promise<ApplyResult> {
    const d = tx.deposit!;
    const ctx = this.#ctx;
    const w = this.#w;
    if (this.txs.length === 0 && tx.to === L1_BLOCK_ADDRESS) {
      this.#l1 = parseL1FeeParams(tx.input);
      this.#l1Info = tx.input;
    }
    w.credit(tx.from, d.mint);
    const depositNonce = w.bumpNonce(tx.from);
    let status: 0 | 1 = 1;
    let logs: SimLog[] = [];
    let extraGas = 0n;
    const intrinsic = intrinsicGasOf(tx, this.#gasRules);
    if (w.account(tx.from).balance < tx.value) status = 0;
    else if (this.#usesEvm(tx)) {
      const budget = ctx.regolith ? tx.gas - intrinsic : tx.gas;
      if (budget < 0n) status = 0;
      else {
        const o = await this.#runEvm(tx, budget, 0n);
        status = o.success ? 1 : 0;
        logs = o.logs;
        extraGas = txGasUsed(intrinsic, o.gasUsed, o.refund, 0n) - intrinsic;
      }
    } else {
      const r = this.#transfer(tx, tx.from, depositNonce);
      status = r.status;
      logs = r.logs;
      extraGas = r.extraGas;
    }
    let gasUsed: bigint;
    if (!ctx.regolith) gasUsed = d.isSystemTx ? 0n : tx.gas;
    else {
      gasUsed = intrinsic + extraGas;
      if (gasUsed > tx.gas) gasUsed = tx.gas;
    }
    this.#push(tx, {
      status,
      gasUsed,
      effectiveGasPrice: 0n,
      logs,
      contractAddress: tx.to === null ? createAddress(tx.from, depositNonce) : null,
      ...(ctx.regolith ? { depositNonce } : {}),
      ...(ctx.canyon ? { depositReceiptVersion: 1n } : {}),
      l1: null,
    });
    return { ok: true };
  }

  async #applyUser(tx: SimTx): Promise<ApplyResult> {
    const ctx = this.#ctx;
    const w = this.#w;
    if (tx.chainId !== undefined && tx.chainId !== ctx.chainId) return { ok: false, reason: "invalid chain id" };
    if (tx.type === 4 && !ctx.isthmus) return { ok: false, reason: "transaction type not supported" };
    if (tx.type === 4 && (tx.to === null || (tx.authorizationList?.length ?? 0) === 0))
      return { ok: false, reason: "EIP-7702 transaction with empty auth list or no destination" };
    const acc = w.account(tx.from);
    if (tx.nonce !== acc.nonce)
      return { ok: false, reason: `nonce ${tx.nonce} does not match account nonce ${acc.nonce}` };
    if (ctx.karst === true && tx.gas > MAX_TX_GAS)
      return { ok: false, reason: `transaction gas limit too high (cap: ${MAX_TX_GAS}, tx: ${tx.gas})` };
    const intrinsic = intrinsicGasOf(tx, this.#gasRules);
    const floor = floorGasOf(tx.input, this.#gasRules);
    if (tx.gas < intrinsic || tx.gas < floor) return { ok: false, reason: "intrinsic gas too low" };
    if (this.gasUsed + tx.gas > ctx.gasLimit) return { ok: false, reason: "gas limit reached" };
    const feeCap = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
    if (feeCap < ctx.baseFee) return { ok: false, reason: "max fee per gas less than block base fee" };
    // A dynamic-fee transaction without a tip (a zero tip is left out when decoded) pays the base fee only;
    // legacy and access-list transactions pay their gas price.
    const tipCap = tx.maxFeePerGas !== undefined ? (tx.maxPriorityFeePerGas ?? 0n) : feeCap;
    const price = feeCap < ctx.baseFee + tipCap ? feeCap : ctx.baseFee + tipCap;
    let l1: L1FeeFields | null = null;
    if (this.#l1 !== undefined) l1 = l1FeeFor(tx.raw, this.#l1, ctx);
    const l1Fee = l1?.l1Fee ?? 0n;
    const maxOpFee = this.#l1 !== undefined && ctx.isthmus ? operatorFee(tx.gas, this.#l1, ctx.jovian) : 0n;
    if (acc.balance < tx.gas * feeCap + tx.value + l1Fee + maxOpFee)
      return { ok: false, reason: "insufficient funds for gas * price + value" };
    w.bumpNonce(tx.from);
    // EIP-7702: the authorizations land before the message runs (and stay when it fails)
    const auth: AppliedAuthorizations | undefined =
      tx.authorizationList === undefined ? undefined : applyAuthorizations(w, tx.authorizationList, ctx.chainId);
    const authRefund = auth?.refund ?? 0n;
    let gasUsed: bigint;
    let r: TransferResult;
    if (this.#usesEvm(tx)) {
      // As a real client: the gas (and the L1 and operator fees) are bought before the EVM runs.
      const upfront = tx.gas * price + l1Fee + maxOpFee;
      w.debit(tx.from, upfront);
      const o = await this.#runEvm(tx, tx.gas - intrinsic, price, auth?.warm);
      w.credit(tx.from, upfront);
      r = { status: o.success ? 1 : 0, logs: o.logs, extraGas: 0n };
      gasUsed = txGasUsed(intrinsic, o.gasUsed, o.refund + authRefund, floor);
    } else {
      r = this.#transfer(tx, tx.from, tx.nonce!);
      gasUsed = txGasUsed(intrinsic, r.extraGas, authRefund, floor);
    }
    const status = r.status;
    const opFee = this.#l1 !== undefined && ctx.isthmus ? operatorFee(gasUsed, this.#l1, ctx.jovian) : 0n;
    w.debit(tx.from, gasUsed * price + l1Fee + opFee);
    w.credit(BASE_FEE_VAULT, gasUsed * ctx.baseFee);
    w.credit(ctx.coinbase, gasUsed * (price - ctx.baseFee));
    w.credit(L1_FEE_VAULT, l1Fee);
    w.credit(OPERATOR_FEE_VAULT, opFee);
    if (ctx.jovian && this.#l1 !== undefined) {
      const scalar = this.#l1.daFootprintGasScalar === 0n ? 400n : this.#l1.daFootprintGasScalar;
      this.blobGasUsed += daFootprint(tx.raw, scalar);
    }
    this.#push(tx, {
      status,
      gasUsed,
      effectiveGasPrice: price,
      logs: status === 1 ? r.logs : [],
      contractAddress: tx.to === null ? createAddress(tx.from, tx.nonce!) : null,
      l1,
    });
    return { ok: true };
  }

  /** Moves `value` (balance checked by the caller): a transaction to an account without code. */
  #transfer(tx: SimTx, from: Address, nonce: bigint): TransferResult {
    const w = this.#w;
    const to = tx.to ?? createAddress(from, nonce);
    w.debit(from, tx.value);
    w.credit(to, tx.value);
    return { status: 1, logs: [], extraGas: 0n };
  }

  #push(tx: SimTx, r: Omit<SimReceipt, "cumulativeGasUsed" | "logsBloom">): void {
    this.gasUsed += r.gasUsed;
    this.txs.push(tx);
    const bloom = r.logs.length === 0 ? EMPTY_BLOOM : logsBloom(r.logs);
    this.receipts.push({ ...r, cumulativeGasUsed: this.gasUsed, logsBloom: bloom });
  }

  /** Seals the post-state (the executor must not be used afterwards). */
  finish(): LedgerState {
    return this.#w.seal();
  }
}

/** CREATE address: keccak256(rlp([sender, nonce]))[12:]. */
export function createAddress(sender: Address, nonce: bigint): Address {
  const enc = rlpEncodeListRaw([rlpEncodeBytes(hexToBytes(sender)), rlpEncodeBytes(uintToBytes(nonce))]);
  return bytesToHex(keccak(enc).subarray(12));
}
