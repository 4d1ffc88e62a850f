/**
 * Wires one chain's P2P host (src/p2p) for its virtual node: the host lives as long as the supernode; accepted
 * gossip payloads go to the chain's inbox (unsafe-inbox.ts, which hands them to the node instance that runs),
 * req-resp serves the chain's blocks from its execution client, the sequencer's blocks go out through the host
 * (`UnsafeBlockSink`), the unsafe-block signer is read from the L1 SystemConfig, and the `stackp2p_*` methods are
 * served from the host's control view. Nothing here runs under `--disable-p2p`.
 */
import type { Registry } from "prom-client";
import type { ChainConfig } from "../config/types.js";
import type { Logger } from "../core/logger.js";
import type { Clock } from "../core/time/clock.js";
import type { Address, Hash } from "../core/types/primitives.js";
import type { ExecutionPayloadEnvelope, L1Source, UnsafeBlockSink, UnsafeGapFiller } from "../node/ports.js";
import { RemoteBlockSigner } from "../io/signer/remote-signer.js";
import { ChainP2PControl } from "../p2p/control.js";
import { ChainP2P } from "../p2p/host.js";
import { createP2PMetrics } from "../p2p/metrics.js";
import { SignerTracker } from "../p2p/signer.js";
import type { MethodTable } from "../rpc/method-table.js";
import { createStackP2PMethods } from "../rpc/namespaces/stackp2p.js";

/** How often the unsafe-block signer is re-read from L1. */
const SIGNER_REFRESH_MS = 12_000;
/** Bound on one remote-signer request (op-node has none; a later signature is of little use to gossip). */
const REMOTE_SIGN_TIMEOUT_MS = 5_000;

export interface ChainP2PRuntime {
  readonly p2p: ChainP2P;
  readonly methods: MethodTable;
  readonly sink: UnsafeBlockSink;
  readonly gapFiller: UnsafeGapFiller;
  stop(): Promise<void>;
}

/** What the host talks to on the chain's side, built before it. */
export interface ChainP2PEnds {
  /** Where accepted payloads go (the chain's inbox). */
  readonly inbox: { deliver(envelope: ExecutionPayloadEnvelope): void };
  /** Where req-resp reads the chain's blocks (its execution client). */
  readonly blocks: { payloadByNumber(n: number): Promise<ExecutionPayloadEnvelope | undefined> };
}

/** The shared L1 client as P2P needs it: labels, and storage reads (the unsafe-block signer in SystemConfig). */
export interface L1StateSource extends L1Source {
  getStorageAt(address: Address, slot: Hash, blockHash: Hash): Promise<Hash>;
}

export async function startChainP2P(
  chain: ChainConfig,
  l1: L1StateSource,
  ends: ChainP2PEnds,
  ctx: { clock: Clock; logger: Logger; registry: Registry },
): Promise<ChainP2PRuntime> {
  const logger = ctx.logger.child({ chain: chain.chainId.toString(10), module: "p2p" });
  const signer = new SignerTracker(
    chain.rollup.l1_system_config_address,
    {
      headHash: async () => (l1.getLabel?.("latest") ?? (await l1.l1BlockRefByLabel("latest"))).hash,
      getStorageAt: (a, s, b) => l1.getStorageAt(a, s, b),
    },
    ctx.clock,
    logger,
    Math.ceil(chain.p2p.gossip.timestampThresholdMs / 1000),
  );
  const remote = chain.p2p.remoteSigner;
  const blockSigner =
    remote === undefined
      ? undefined
      : new RemoteBlockSigner({ ...remote, timeoutMs: REMOTE_SIGN_TIMEOUT_MS, clock: ctx.clock });
  if (blockSigner !== undefined) {
    // op-service refuses to start when `health_status` fails; one chain's signer must not stop the supernode, so a
    // signer that is down only means no gossip until it answers (logged by the publisher).
    void blockSigner.health(AbortSignal.timeout(REMOTE_SIGN_TIMEOUT_MS)).then(
      (version) =>
        logger.info(
          { endpoint: blockSigner.endpoint, address: blockSigner.address, version },
          "remote signer reachable",
        ),
      (err: unknown) =>
        logger.warn(
          { endpoint: blockSigner.endpoint, err: err instanceof Error ? err.message : String(err) },
          "remote signer not reachable at startup: sequenced blocks are not gossiped until it answers",
        ),
    );
  }
  const p2p = await ChainP2P.create(
    { chainId: chain.chainId, rollup: chain.rollup, p2p: chain.p2p, dir: `${chain.dataDir}/p2p` },
    {
      clock: ctx.clock,
      logger,
      metrics: createP2PMetrics(ctx.registry, chain.chainId),
      signer: () => signer.get(),
      blockSigner,
      onPayload: (env: ExecutionPayloadEnvelope) => ends.inbox.deliver(env),
    },
  );
  await p2p.servePayloads((n) => ends.blocks.payloadByNumber(n));
  await p2p.start();
  signer.start(SIGNER_REFRESH_MS);
  return {
    p2p,
    methods: createStackP2PMethods(new ChainP2PControl(p2p)),
    // Not awaited: signing (possibly remote) and publishing never hold up the sequencer (op-node gossips async too).
    sink: {
      publish: (env) => {
        void p2p.publish(env);
      },
    },
    gapFiller: { requestRange: (from, to) => p2p.requestRange(from, to) },
    stop: async () => {
      signer.stop();
      await p2p.stop();
      blockSigner?.close();
    },
  };
}
