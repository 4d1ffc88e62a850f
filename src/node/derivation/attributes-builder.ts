import { CriticalError, DecodeError, ResetError } from "../../core/errors/supernode-error.js";
import type { BlockId, L1BlockRef, L2BlockRef } from "../../core/types/block-ref.js";
import {
  builtinL1Config,
  devnetL1Config,
  l1OriginBlobBaseFee,
  type L1ChainConfig,
} from "../../protocol/l1/blob-fee.js";
import { userDepositsFromReceipts } from "../../protocol/l1/deposit-log.js";
import { applySystemConfigReceipts } from "../../protocol/l1/system-config.js";
import { buildPayloadAttributes } from "../../protocol/l2/attributes.js";
import { systemConfigFromL2Block } from "../../protocol/l2/block-ref.js";
import { encodeDepositTx } from "../../protocol/l2/deposit-tx.js";
import { extraDataForAttributes } from "../../protocol/l2/extra-data.js";
import { type L1OriginInfo, l1InfoFormatAt } from "../../protocol/l2/l1-info.js";
import type { UpgradeInputs } from "../../protocol/l2/upgrade-txs.js";
import type { PayloadAttributes } from "../../protocol/l2/attributes.js";
import type { Hash, Hex } from "../../core/types/primitives.js";
import { isForkActive, type RollupConfig, type SystemConfig } from "../../protocol/rollup-config.js";
import type { ExecutionEngine, L1BlockInfo, L1Source } from "../ports.js";
import type { AttributesBuilder, PreparedAttributes } from "./types.js";
import { systemConfigFromPayload } from "./l2-block.js";
import { RECENT_SYSTEM_CONFIGS, RecentSystemConfigs } from "./recent-system-configs.js";
import { receiptsOf } from "./l1-slices.js";

export function l1OriginInfo(cfg: RollupConfig, l1cfg: L1ChainConfig, info: L1BlockInfo): L1OriginInfo {
  return {
    number: info.number,
    hash: info.hash,
    time: info.timestamp,
    baseFee: info.baseFeePerGas ?? 0n,
    blobBaseFee: l1OriginBlobBaseFee(cfg, l1cfg, info.timestamp, info.excessBlobGas),
    mixHash: info.mixHash,
    ...(info.parentBeaconBlockRoot !== undefined ? { parentBeaconBlockRoot: info.parentBeaconBlockRoot } : {}),
  };
}

/** An epoch's L1 header with what is made from it once per epoch: the L1-info origin and the block ref. */
interface OriginRecord {
  readonly info: L1BlockInfo;
  readonly origin: L1OriginInfo;
  readonly ref: L1BlockRef;
}

/** No user deposits (a block within its epoch). */
const NO_DEPOSITS: readonly Uint8Array[] = Object.freeze([]);

export function defaultL1ChainConfig(cfg: RollupConfig): L1ChainConfig {
  return builtinL1Config(cfg.l1_chain_id) ?? devnetL1Config(cfg.l1_chain_id);
}

export class FetchingAttributesBuilder implements AttributesBuilder {
  /**
   * SystemConfig of the last blocks built from our attributes, by parent hash, origin hash and number: what reading
   * the block back gives (op-node `PayloadToSystemConfig`), not the config the attributes were built with.
   */
  private readonly sysCache: RecentSystemConfigs;
  private readonly l1cfg: L1ChainConfig;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly l1: L1Source,
    private readonly engine: ExecutionEngine,
    l1cfg?: L1ChainConfig,
    /** The dependency-set size and the NUT bundles the activation blocks of Karst and Lagoon need. */
    private readonly upgrades: UpgradeInputs = {},
    /** Blocks whose read-back SystemConfig is remembered (older ones are read from the execution client). */
    recentConfigs = RECENT_SYSTEM_CONFIGS,
  ) {
    this.l1cfg = l1cfg ?? defaultL1ChainConfig(cfg);
    this.sysCache = new RecentSystemConfigs(recentConfigs);
  }

  /** L1OriginInfo of the last origin header (the same for every block of an epoch; headers are immutable). */
  private lastOrigin: OriginRecord | undefined;

  private originRecord(info: L1BlockInfo): OriginRecord {
    const last = this.lastOrigin;
    if (last !== undefined && last.info === info) return last;
    const rec: OriginRecord = {
      info,
      origin: l1OriginInfo(this.cfg, this.l1cfg, info),
      ref: { hash: info.hash, number: info.number, parentHash: info.parentHash, timestamp: info.timestamp },
    };
    this.lastOrigin = rec;
    return rec;
  }

  /** SystemConfig the block `parent` was built with. */
  async systemConfigOf(parent: L2BlockRef): Promise<SystemConfig> {
    const known = this.knownSystemConfigOf(parent);
    if (known !== undefined) return known;
    const env = await this.engine.payloadByHash(parent.hash);
    if (env === undefined) throw new ResetError("UNKNOWN_L2_PARENT", `L2 block ${parent.hash} not found`);
    return systemConfigFromPayload(this.cfg, env);
  }

  /** {@link systemConfigOf} when it needs no read from the execution client (genesis, or a recent block). */
  private knownSystemConfigOf(parent: L2BlockRef): SystemConfig | undefined {
    if (parent.number === this.cfg.genesis.l2.number) return this.cfg.genesis.system_config;
    return this.sysCache.get(parent.parentHash, parent.l1origin.hash, parent.number);
  }

  /** The last read-back SystemConfig, with the config and the fork rules it was computed from. */
  private lastReadBack:
    | { sys: SystemConfig; format: string; holocene: boolean; jovian: boolean; read: SystemConfig }
    | undefined;

  /**
   * The SystemConfig a block built from `attributes` (assembled with `sys`) reads back as. It depends only on
   * `sys` and the fork rules at the block's time (L1-info format, Holocene, Jovian), not on the origin or the
   * sequence number, and reading back is a projection (a read-back config reads back as itself): so within an
   * epoch it is computed once, not decoded again from every block's L1-info deposit.
   */
  private readBack(sys: SystemConfig, attributes: PayloadAttributes, number: number, parentHash: Hash): SystemConfig {
    const f = attributes.fields;
    const ts = f.timestamp;
    const format = l1InfoFormatAt(this.cfg, ts);
    const holocene = isForkActive(this.cfg, "holocene", ts);
    const jovian = isForkActive(this.cfg, "jovian", ts);
    const last = this.lastReadBack;
    if (
      last !== undefined &&
      last.format === format &&
      last.holocene === holocene &&
      last.jovian === jovian &&
      // not on a fork's activation block, whose gas limit carries its upgrade gas
      last.read.gasLimit === f.gasLimit &&
      (last.sys === sys || last.read === sys)
    ) {
      return last.read;
    }
    const read = systemConfigFromL2Block(this.cfg, {
      hash: parentHash,
      number,
      parentHash,
      timestamp: ts,
      gasLimit: f.gasLimit,
      extraData: extraDataForAttributes(this.cfg, ts, f.eip1559Params, f.minBaseFee),
      // The L1-info deposit alone.
      firstTx: attributes.txBytes[0],
    });
    this.lastReadBack = { sys, format, holocene, jovian, read };
    return read;
  }

  /** The attributes of the block after `parent` in `epoch`, with the reads they need (SystemConfig, L1 data). */
  async prepare(
    parent: L2BlockRef,
    epoch: BlockId,
    batchTransactions?: readonly (Uint8Array | Hex)[],
  ): Promise<PreparedAttributes> {
    let sys = this.knownSystemConfigOf(parent) ?? (await this.systemConfigOf(parent));
    let seq: number;
    let info: L1BlockInfo;
    let deposits: readonly Uint8Array[] = NO_DEPOSITS;
    if (parent.l1origin.number !== epoch.number) {
      const r = await receiptsOf(this.l1, epoch.hash, [
        this.cfg.deposit_contract_address,
        this.cfg.l1_system_config_address,
      ]);
      info = r.info;
      if (info.parentHash !== parent.l1origin.hash) {
        throw new ResetError("L1_ORIGIN_MISMATCH", "new epoch's parent hash does not match the parent's L1 origin", {
          epoch: epoch.number,
        });
      }
      const [depositReceipts = [], configReceipts = []] = r.receipts;
      try {
        deposits = userDepositsFromReceipts(depositReceipts, this.cfg.deposit_contract_address, info.hash).map(
          encodeDepositTx,
        );
      } catch (err) {
        if (err instanceof DecodeError) throw new CriticalError("BAD_DEPOSIT_LOG", err.message, {}, err);
        throw err;
      }
      sys = applySystemConfigReceipts(
        sys,
        configReceipts,
        this.cfg.l1_system_config_address,
        isForkActive(this.cfg, "ecotone", info.timestamp),
      ).config;
      seq = 0;
    } else {
      if (parent.l1origin.hash !== epoch.hash) {
        throw new ResetError("L1_ORIGIN_MISMATCH", "parent's L1 origin differs from the epoch", {
          epoch: epoch.number,
        });
      }
      // An L1 header is immutable by hash: the epoch's header read for the previous block is this one.
      const last = this.lastOrigin?.info;
      info = last !== undefined && last.hash === epoch.hash ? last : await this.l1.infoByHash(epoch.hash);
      seq = parent.sequenceNumber + 1;
    }
    return this.assemble(parent, sys, this.originRecord(info), deposits, seq, batchTransactions);
  }

  /** The attributes from what was read (pure but for the SystemConfig memory it writes). */
  private assemble(
    parent: L2BlockRef,
    sys: SystemConfig,
    origin: OriginRecord,
    deposits: readonly Uint8Array[],
    seq: number,
    batchTransactions: readonly (Uint8Array | Hex)[] | undefined,
  ): PreparedAttributes {
    const attributes = buildPayloadAttributes({
      cfg: this.cfg,
      sysConfig: sys,
      l2Parent: parent,
      l1Origin: origin.origin,
      depositTxs: deposits,
      seqNumber: seq,
      dependencySetSize: this.upgrades.dependencySetSize,
      nutBundles: this.upgrades.nutBundles,
      batchTransactions,
    });
    // The block built on `parent` will read back as this SystemConfig. Not `sys` itself: fields its fork does not
    // carry yet (EIP-1559 params before Holocene, min base fee before Jovian, operator fee before the Isthmus L1-info
    // format, …) are lost, exactly as when the block is read from the execution client.
    const nextNumber = parent.number + 1;
    this.sysCache.set(
      parent.hash,
      origin.info.hash,
      nextNumber,
      this.readBack(sys, attributes, nextNumber, parent.hash),
    );
    return { attributes, l1origin: origin.ref, sequenceNumber: seq };
  }
}
