/**
 * Runs EVM messages (transactions' execution part, `eth_call`s) with @ethereumjs/evm over the ledger of one block
 * (docs/adr/0111). The executor keeps the OP transaction rules (nonces, fees, L1 fee, deposits' mint); this file
 * runs the message itself — value transfer, contract creation, calls, logs, storage, gas and refunds — at the
 * hardfork rules the L2 forks name.
 */
import { type Common, createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import {
  createEVM,
  type EVM,
  EVMError,
  type EVMResult,
  type ExecResult,
  getActivePrecompiles,
  type PrecompileInput,
} from "@ethereumjs/evm";
import { Address as EvmAddress } from "@ethereumjs/util";
import { type Address, bytesToHex, type Hash, type Hex, hexToBytes } from "supernode/core";
import type { LedgerWriter } from "../ledger.js";
import type { SimLog } from "../types.js";
import { type CallTracer, attachTracer } from "./call-tracer.js";
import { LedgerStateManager } from "./ledger-state-manager.js";
import { MessageStack, type StatefulNative, statefulPrecompile } from "./native-frame.js";

/** Which Ethereum rules an L2 block runs: Bedrock = Paris, Canyon = Shanghai, Ecotone = Cancun, Isthmus = Prague,
 * Karst = Osaka; `p256` adds P256VERIFY (0x100, RIP-7212 gas 3450) from Fjord until Osaka brings EIP-7951's. */
export interface EvmRules {
  readonly hardfork: Hardfork;
  readonly p256: boolean;
}

export function evmRulesFor(f: {
  canyon: boolean;
  ecotone: boolean;
  fjord: boolean;
  isthmus: boolean;
  karst: boolean;
}): EvmRules {
  const hardfork = f.karst
    ? Hardfork.Osaka
    : f.isthmus
      ? Hardfork.Prague
      : f.ecotone
        ? Hardfork.Cancun
        : f.canyon
          ? Hardfork.Shanghai
          : Hardfork.Paris;
  return { hardfork, p256: f.fjord && !f.karst };
}

/** A natively implemented view contract (predeploy) the EVM calls as a precompile. */
export interface ViewNative {
  readonly address: Address;
  /** Returns the output, or a revert (`revert: true`, output = revert data); `gas` is what the call costs. */
  call(input: Uint8Array): { readonly output: Uint8Array; readonly gas: bigint; readonly revert?: boolean };
}

/** A native predeploy: a view contract, or one with state and a call frame (`native-frame.ts`). */
export type NativeContract = ViewNative | StatefulNative;

/** The block fields the EVM reads (BLOCKHASH, COINBASE, …). */
export interface EvmBlockFields {
  readonly chainId: bigint;
  readonly number: number;
  readonly timestamp: number;
  readonly coinbase: Address;
  readonly gasLimit: bigint;
  readonly baseFee: bigint;
  readonly prevRandao: Hash;
  /** BLOCKHASH: the hash of an earlier block (undefined: unknown, 0 is pushed). */
  readonly blockHash: (n: number) => Hash | undefined;
}

export interface EvmBlockEnv extends EvmBlockFields {
  readonly rules: EvmRules;
  readonly natives: readonly NativeContract[];
}

export interface EvmMessage {
  readonly from: Address;
  readonly to: Address | null;
  readonly value: bigint;
  readonly input: Hex;
  /** Gas for execution (the transaction's gas minus intrinsic gas). */
  readonly gas: bigint;
  readonly gasPrice: bigint;
  readonly accessList?: readonly { address: Address; storageKeys: readonly Hash[] }[];
  /** Further addresses warm from the start (EIP-7702 authorities). */
  readonly warm?: readonly Address[] | undefined;
}

export interface EvmOutcome {
  readonly success: boolean;
  /** Execution gas used (refunds not subtracted). */
  readonly gasUsed: bigint;
  /** The refund counter at the end (before the EIP-3529 cap). */
  readonly refund: bigint;
  readonly logs: SimLog[];
  readonly output: Hex;
  /** The EVM's error (`revert`, `out of gas`, …); undefined on success. */
  readonly error?: string;
  /** Accessed addresses and slots (when asked for; `eth_createAccessList`). */
  readonly accessList?: { address: Address; storageKeys: Hash[] }[];
}

const commons = new Map<string, Common>();

function commonFor(chainId: bigint, rules: EvmRules): Common {
  const key = `${chainId}/${rules.hardfork}`;
  let c = commons.get(key);
  if (c === undefined) {
    c = createCustomCommon({ chainId: Number(chainId) }, Mainnet, { hardfork: rules.hardfork });
    commons.set(key, c);
  }
  return c;
}

const P256_ADDRESS = "0x0000000000000000000000000000000000000100";
const RIP7212_GAS = 3450n;

function outOfGas(gasLimit: bigint): ExecResult {
  return {
    executionGasUsed: gasLimit,
    returnValue: new Uint8Array(0),
    exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS),
  };
}

type Precompile = (input: PrecompileInput) => ExecResult | Promise<ExecResult>;

/** RIP-7212 P256VERIFY (Fjord until Osaka): EIP-7951's verification at RIP-7212's gas. */
function rip7212(): Precompile {
  const osaka = getActivePrecompiles(createCustomCommon({}, Mainnet, { hardfork: Hardfork.Osaka }));
  const verify = osaka.get(P256_ADDRESS.slice(2)) as unknown as Precompile;
  return async (input) => {
    if (input.gasLimit < RIP7212_GAS) return outOfGas(input.gasLimit);
    const r = await verify({ ...input, gasLimit: 1_000_000n });
    return { ...r, executionGasUsed: RIP7212_GAS };
  };
}

function nativePrecompile(n: ViewNative): Precompile {
  return (input) => {
    const r = n.call(input.data);
    if (input.gasLimit < r.gas) return outOfGas(input.gasLimit);
    if (r.revert === true)
      return {
        executionGasUsed: r.gas,
        returnValue: r.output,
        exceptionError: new EVMError(EVMError.errorMessages.REVERT),
      };
    return { executionGasUsed: r.gas, returnValue: r.output };
  };
}

/** One block's (or one call's) EVM over a ledger working copy. */
export class EvmSession {
  readonly #sm: LedgerStateManager;
  readonly #env: EvmBlockEnv;
  readonly #messages = new MessageStack();
  #evm: Promise<EVM> | undefined;

  constructor(ledger: LedgerWriter, env: EvmBlockEnv) {
    this.#sm = new LedgerStateManager(ledger);
    this.#env = env;
  }

  #instance(): Promise<EVM> {
    const env = this.#env;
    this.#evm ??= createEVM({
      // A copy per EVM: every EVM subscribes to its Common's events.
      common: commonFor(env.chainId, env.rules).copy(),
      stateManager: this.#sm,
      blockchain: {
        getBlock: async (n: number) => {
          const h = env.blockHash(n);
          return { hash: () => (h === undefined ? new Uint8Array(32) : hexToBytes(h)) };
        },
        putBlock: async () => {},
        shallowCopy() {
          return this;
        },
      },
      customPrecompiles: [
        ...(env.rules.p256
          ? [{ address: new EvmAddress(hexToBytes(P256_ADDRESS)), function: rip7212() as never }]
          : []),
        ...env.natives.map((n) => ({
          address: new EvmAddress(hexToBytes(n.address)),
          function: ("run" in n ? statefulPrecompile(n, this.#messages, env.chainId) : nativePrecompile(n)) as never,
        })),
      ],
    }).then((evm) => {
      this.#messages.attach(evm);
      return evm;
    });
    return this.#evm;
  }

  #block() {
    const e = this.#env;
    return {
      header: {
        number: BigInt(e.number),
        coinbase: new EvmAddress(hexToBytes(e.coinbase)),
        timestamp: BigInt(e.timestamp),
        difficulty: 0n,
        prevRandao: hexToBytes(e.prevRandao),
        gasLimit: e.gasLimit,
        baseFeePerGas: e.baseFee,
        slotNumber: 0n,
        // OP chains keep excessBlobGas at 0: the blob base fee is the minimum, 1 wei.
        getBlobGasPrice: () => 1n,
      },
    };
  }

  /**
   * Runs a message. `keep` writes its state changes into the ledger (a transaction); otherwise they are dropped
   * (a call). The sender's nonce is the caller's business (bumped before a transaction runs).
   */
  async run(m: EvmMessage, opts: { keep: boolean; tracer?: CallTracer; accessList?: boolean }): Promise<EvmOutcome> {
    const evm = await this.#instance();
    this.#messages.reset();
    const j = evm.journal;
    await j.cleanup();
    if (opts.accessList === true) j.startReportingAccessList();
    for (const a of evm.precompiles.keys()) j.addAlwaysWarmAddress(a);
    j.addAlwaysWarmAddress(m.from.slice(2));
    if (m.to !== null) j.addAlwaysWarmAddress(m.to.slice(2));
    for (const a of m.warm ?? []) j.addAlwaysWarmAddress(a.slice(2));
    if (this.#env.rules.hardfork !== Hardfork.Paris) j.addAlwaysWarmAddress(this.#env.coinbase.slice(2));
    for (const e of m.accessList ?? []) {
      // the journal compares lower-case hex (an eth_call's list may come in any case)
      const a = e.address.slice(2).toLowerCase();
      j.addAlwaysWarmAddress(a, true);
      for (const k of e.storageKeys) j.addAlwaysWarmSlot(a, k.slice(2).toLowerCase(), true);
    }
    const detach = opts.tracer === undefined ? undefined : attachTracer(evm, opts.tracer);
    let r: EVMResult;
    try {
      r = await evm.runCall({
        block: this.#block() as never,
        gasPrice: m.gasPrice,
        origin: new EvmAddress(hexToBytes(m.from)),
        caller: new EvmAddress(hexToBytes(m.from)),
        ...(m.to === null ? {} : { to: new EvmAddress(hexToBytes(m.to)) }),
        value: m.value,
        data: hexToBytes(m.input),
        gasLimit: m.gas,
        skipNonceIncrement: true,
      });
      const ex = r.execResult;
      for (const addr of ex.selfdestruct?.keys() ?? []) {
        if (ex.createdAddresses?.has(addr) === true) await j.deleteAccount(new EvmAddress(hexToBytes(addr as Hex)));
      }
    } finally {
      detach?.();
    }
    const accessList = opts.accessList === true ? reportedAccessList(j.accessList) : undefined;
    await j.cleanup();
    evm.transientStorage.clear();
    if (opts.keep) this.#sm.flush();
    else this.#sm.discard();
    return outcomeOf(r, accessList);
  }
}

function reportedAccessList(list: Map<string, Set<string>> | undefined): { address: Address; storageKeys: Hash[] }[] {
  const out: { address: Address; storageKeys: Hash[] }[] = [];
  for (const [a, slots] of list ?? []) {
    out.push({ address: `0x${a}` as Address, storageKeys: [...slots].map((s) => `0x${s.padStart(64, "0")}` as Hash) });
  }
  return out;
}

function outcomeOf(r: EVMResult, accessList: EvmOutcome["accessList"]): EvmOutcome {
  const ex = r.execResult;
  const err = ex.exceptionError?.error;
  return {
    success: err === undefined,
    gasUsed: ex.executionGasUsed,
    refund: ex.gasRefund ?? 0n,
    logs:
      err === undefined
        ? (ex.logs ?? []).map(([address, topics, data]) => ({
            address: bytesToHex(address) as Address,
            topics: topics.map((t) => bytesToHex(t) as Hash),
            data: bytesToHex(data),
          }))
        : [],
    output: bytesToHex(ex.returnValue),
    ...(err === undefined ? {} : { error: err }),
    ...(accessList === undefined ? {} : { accessList }),
  };
}
