import { FORKS } from "../protocol/rollup-config.js";
import type { NetworkFile } from "./networks.js";

/** Superchain-level facts of a registry snapshot (`superchains[].config`). */
export interface RegistrySuperchain {
  readonly name: string;
  readonly l1: { readonly chain_id: number };
  readonly hardforks?: Readonly<Record<string, number | null>>;
  readonly protocol_versions_addr?: string | null;
}

/** One chain of a registry snapshot (`superchains[].chains[]`). */
export interface RegistryChain {
  readonly Name: string;
  readonly PublicRPC?: string | null;
  readonly SequencerRPC?: string | null;
  readonly Explorer?: string | null;
  readonly SuperchainLevel?: number | null;
  readonly DataAvailabilityType?: string | null;
  readonly GasPayingToken?: string | null;
  readonly l2_chain_id: number;
  readonly batch_inbox_address: string;
  readonly block_time: number;
  readonly seq_window_size: number;
  readonly max_sequencer_drift: number;
  readonly hardfork_configuration?: Readonly<Record<string, number | null>> | null;
  readonly optimism?: {
    readonly eip1559Elasticity: number;
    readonly eip1559Denominator: number;
    readonly eip1559DenominatorCanyon?: number | null;
  } | null;
  readonly alt_da?: {
    readonly da_challenge_address?: string | null;
    readonly da_challenge_window: number;
    readonly da_resolve_window: number;
    readonly da_commitment_type: string;
  } | null;
  readonly genesis: {
    readonly l1: { readonly number: number; readonly hash: string };
    readonly l2: { readonly number: number; readonly hash: string };
    readonly l2_time: number;
    readonly system_config: {
      readonly batcherAddr: string;
      readonly overhead: string;
      readonly scalar: string;
      readonly gasLimit: number;
    };
  };
  readonly Addresses?: Readonly<Record<string, string | null>> | null;
}

/** Registry rules: channel timeout is fixed for registry chains; Regolith is active at genesis. */
export const REGISTRY_CHANNEL_TIMEOUT = 300;

const ZERO_ADDRESS = `0x${"00".repeat(20)}`;
const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "");

/**
 * Network name `<chain>-<superchain>` from the registry identifier `<superchain>/<chain>` (e.g. `mainnet/op` →
 * `op-mainnet`). When the identifier names another superchain, the chain's display name is used instead.
 */
export function networkName(superchain: string, chainName: string, identifier: string | undefined): string {
  const [sc, short] = (identifier ?? "").split("/");
  const chain = sc === superchain && short ? short : slug(chainName);
  return `${chain}-${superchain}`;
}

const lower = (s: string): string => s.toLowerCase();

/** Converts one registry chain into the project's network file (rollup config per op-node's conversion). */
export function networkFromRegistry(
  superchain: string,
  sc: RegistrySuperchain,
  c: RegistryChain,
  identifier: string | undefined,
): NetworkFile {
  const name = networkName(superchain, c.Name, identifier);
  const addresses: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.Addresses ?? {})) if (typeof v === "string") addresses[k] = lower(v);
  const rollup: Record<string, unknown> = {
    genesis: {
      l1: { hash: lower(c.genesis.l1.hash), number: c.genesis.l1.number },
      l2: { hash: lower(c.genesis.l2.hash), number: c.genesis.l2.number },
      l2_time: c.genesis.l2_time,
      system_config: {
        batcherAddr: lower(c.genesis.system_config.batcherAddr),
        overhead: lower(c.genesis.system_config.overhead),
        scalar: lower(c.genesis.system_config.scalar),
        gasLimit: c.genesis.system_config.gasLimit,
      },
    },
    block_time: c.block_time,
    max_sequencer_drift: c.max_sequencer_drift,
    seq_window_size: c.seq_window_size,
    channel_timeout: REGISTRY_CHANNEL_TIMEOUT,
    l1_chain_id: sc.l1.chain_id,
    l2_chain_id: c.l2_chain_id,
    regolith_time: 0,
  };
  const hf = c.hardfork_configuration ?? {};
  for (const fork of FORKS) {
    if (fork === "regolith") continue;
    const t = hf[`${fork}_time`];
    if (typeof t === "number") rollup[`${fork}_time`] = t;
  }
  rollup.batch_inbox_address = lower(c.batch_inbox_address);
  rollup.deposit_contract_address = addresses.OptimismPortalProxy ?? ZERO_ADDRESS;
  rollup.l1_system_config_address = addresses.SystemConfigProxy ?? ZERO_ADDRESS;
  rollup.protocol_versions_address = lower(sc.protocol_versions_addr ?? ZERO_ADDRESS);
  if (c.optimism) {
    rollup.chain_op_config = {
      eip1559Elasticity: c.optimism.eip1559Elasticity,
      eip1559Denominator: c.optimism.eip1559Denominator,
      ...(typeof c.optimism.eip1559DenominatorCanyon === "number"
        ? { eip1559DenominatorCanyon: c.optimism.eip1559DenominatorCanyon }
        : {}),
    };
  }
  if (c.alt_da) {
    rollup.alt_da = {
      da_challenge_contract_address: lower(c.alt_da.da_challenge_address ?? ZERO_ADDRESS),
      da_commitment_type: c.alt_da.da_commitment_type,
      da_challenge_window: c.alt_da.da_challenge_window,
      da_resolve_window: c.alt_da.da_resolve_window,
    };
  }
  const pectra = hf.pectra_blob_schedule_time;
  if (typeof pectra === "number") rollup.pectra_blob_schedule_time = pectra;
  const aliases = name === "op-mainnet" ? ["mainnet"] : name === "op-sepolia" ? ["sepolia"] : [];
  return {
    name,
    ...(aliases.length > 0 ? { aliases } : {}),
    chainName: c.Name,
    superchain,
    chainId: c.l2_chain_id,
    l1ChainId: sc.l1.chain_id,
    ...(typeof c.SuperchainLevel === "number" ? { superchainLevel: c.SuperchainLevel } : {}),
    ...(c.PublicRPC ? { publicRpc: c.PublicRPC } : {}),
    ...(c.SequencerRPC ? { sequencerRpc: c.SequencerRPC } : {}),
    ...(c.Explorer ? { explorer: c.Explorer } : {}),
    ...(c.DataAvailabilityType ? { dataAvailabilityType: c.DataAvailabilityType } : {}),
    ...(c.GasPayingToken ? { gasPayingToken: lower(c.GasPayingToken) } : {}),
    addresses,
    rollup,
  };
}
