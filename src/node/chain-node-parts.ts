/**
 * The parts of one virtual node, wired together (the engine controller, derivation, sequencer, unsafe input, EL
 * sync, interop control, safety steps, status view); `ChainNode` runs them in its driver loop.
 */
import type { L1BlockRef, L2BlockRef } from "../core/types/block-ref.js";
import type { Hash } from "../core/types/primitives.js";
import type { ChainNodeConfig, ChainNodeDeps } from "./chain-node-types.js";
import { DerivationStep } from "./derivation/derivation-step.js";
import type { DerivationPipeline } from "./derivation/types.js";
import { ElSync } from "./sync/el-sync.js";
import { EngineController } from "./engine/engine-controller.js";
import { durationToBlocks } from "./sync/find-heads.js";
import { DEFAULT_FINALITY_LOOKBACK, Finalizer } from "./finality/finalizer.js";
import { UnsafeInput } from "./sync/unsafe-input.js";
import { InteropControl } from "./interop-control.js";
import { L1Labels } from "./l1-labels.js";
import { SafetySteps } from "./finality/safety-steps.js";
import { SequencerDriver } from "./sequencer/sequencer-driver.js";
import { StatusView } from "./status-view.js";

export interface NodeParts {
  readonly finalizer: Finalizer;
  readonly controller: EngineController;
  readonly interop: InteropControl;
  readonly pipeline: DerivationPipeline;
  readonly seq: SequencerDriver;
  readonly elSafeOffsetBlocks: number;
  readonly elSync: ElSync;
  readonly unsafe: UnsafeInput;
  readonly derivation: DerivationStep;
  readonly l1: L1Labels;
  readonly safety: SafetySteps;
  readonly view: StatusView;
}

/** What the parts ask of the node's driver loop. */
export interface NodeHooks {
  onSafeHead(safe: L2BlockRef, derivedFrom: L1BlockRef): Promise<void>;
  /** Waits for a fair turn of the event loop. */
  turn(): Promise<void> | undefined;
  aborted(): boolean;
  /** The node has found its heads. */
  initialised(): boolean;
  /** Why the node cannot take interop requests now (not running, resetting); undefined when it can. */
  busy(): string | undefined;
  /** Derivation starts again from `safe` (an interop rewind): finality, the derivation step and the pipeline. */
  restartFrom(safe: L2BlockRef): Promise<void>;
}

type Deny = ((height: number, hash: Hash) => boolean) | undefined;

/** Builds each part after the parts it uses; what a part needs of the node itself goes through `hooks`. */
export function buildNodeParts(cfg: ChainNodeConfig, deps: ChainNodeDeps, hooks: NodeHooks): NodeParts {
  const pipeline = deps.createPipeline();
  const finalizer = new Finalizer(cfg.finalityLookback || DEFAULT_FINALITY_LOOKBACK);
  const denyList = deps.denyList;
  const isDenied: Deny = denyList === undefined ? undefined : (n, hash) => denyList.isDenied(n, hash);
  const controller = engineController(cfg, deps, hooks, isDenied);
  const elSafeOffsetBlocks =
    cfg.elSafeOffsetBlocks ?? durationToBlocks(cfg.syncOffsetElSafeMs ?? 0, cfg.rollup.block_time);
  const elSync = new ElSync(cfg.syncMode, {
    cfg: cfg.rollup,
    kind: cfg.engineKind,
    engine: deps.engine,
    controller,
    safeDb: deps.safeDb,
    clock: deps.clock,
    logger: deps.logger,
    offsetBlocks: elSafeOffsetBlocks,
  });
  const interop = interopControl(cfg, deps, hooks, controller, elSync);
  const seq = sequencer(cfg, deps, controller, interop);
  const unsafe = unsafeInput(cfg, deps, controller, elSync, isDenied);
  const derivation = derivationStep(cfg, deps, hooks, { pipeline, controller, seq, unsafe });
  const l1 = new L1Labels(deps.l1);
  const safety = new SafetySteps({
    engine: deps.engine,
    controller,
    finalizer,
    l1: deps.l1,
    logger: deps.logger,
    superAuthority: deps.superAuthority,
  });
  const view = new StatusView({
    rollup: cfg.rollup,
    engine: deps.engine,
    controller,
    elSync,
    unsafeQueue: unsafe.queue,
    l1,
    origin: () => (hooks.initialised() ? pipeline.origin : undefined),
    refFromPayload: deps.refFromPayload,
    safeDb: deps.safeDb,
    metrics: deps.metrics,
  });
  return {
    finalizer,
    controller,
    interop,
    pipeline,
    seq,
    elSafeOffsetBlocks,
    elSync,
    unsafe,
    derivation,
    l1,
    safety,
    view,
  };
}

function engineController(cfg: ChainNodeConfig, deps: ChainNodeDeps, hooks: NodeHooks, isDenied: Deny) {
  const authority = deps.superAuthority;
  return new EngineController({
    engine: deps.engine,
    cfg: cfg.rollup,
    logger: deps.logger,
    metrics: deps.metrics,
    refFromPayload: deps.refFromPayload,
    onSafeHead: (safe, derivedFrom) => hooks.onSafeHead(safe, derivedFrom),
    safeFollowsLocal: authority === undefined ? undefined : (ref) => !authority.isActiveAt(ref.timestamp),
    isDenied,
  });
}

function interopControl(
  cfg: ChainNodeConfig,
  deps: ChainNodeDeps,
  hooks: NodeHooks,
  controller: EngineController,
  elSync: ElSync,
): InteropControl {
  return new InteropControl({
    rollup: cfg.rollup,
    engine: deps.engine,
    controller,
    l1: deps.l1,
    safeDb: deps.safeDb,
    denyList: deps.denyList,
    logger: deps.logger,
    refFromPayload: deps.refFromPayload,
    restartFrom: (safe) => hooks.restartFrom(safe),
    notReady: () => hooks.busy() ?? (elSync.syncing ? "EL sync" : undefined),
  });
}

function sequencer(
  cfg: ChainNodeConfig,
  deps: ChainNodeDeps,
  controller: EngineController,
  interop: InteropControl,
): SequencerDriver {
  const interopOn = deps.denyList !== undefined;
  return new SequencerDriver(cfg.sequencer, {
    rollup: cfg.rollup,
    l1: deps.l1,
    controller,
    attributesBuilder: deps.attributesBuilder,
    clock: deps.clock,
    logger: deps.logger,
    metrics: deps.metrics,
    sink: deps.sink,
    store: deps.sequencerStore,
    excludedTxs: interopOn ? () => interop.excludedTxs() : undefined,
    holdAt: interopOn ? (localSafe) => interop.sequencerHoldAt(localSafe) : undefined,
  });
}

function unsafeInput(
  cfg: ChainNodeConfig,
  deps: ChainNodeDeps,
  controller: EngineController,
  elSync: ElSync,
  isDenied: Deny,
): UnsafeInput {
  return new UnsafeInput({
    cfg: cfg.rollup,
    reqResp: cfg.syncModeReqResp ?? false,
    controller,
    elSync,
    clock: deps.clock,
    logger: deps.logger,
    refFromPayload: deps.refFromPayload,
    queueBounds: cfg.unsafeQueue,
    gapFiller: deps.gapFiller,
    isDenied,
  });
}

function derivationStep(
  cfg: ChainNodeConfig,
  deps: ChainNodeDeps,
  hooks: NodeHooks,
  p: { pipeline: DerivationPipeline; controller: EngineController; seq: SequencerDriver; unsafe: UnsafeInput },
): DerivationStep {
  return new DerivationStep({
    pipeline: p.pipeline,
    controller: p.controller,
    metrics: deps.metrics,
    maxSteps: cfg.maxStepsPerTick ?? 256,
    turn: hooks.turn,
    // Yield to the sequencer when a block is due, and to an unsafe payload that extends the unsafe head.
    shouldYield: () => p.seq.due() || p.unsafe.insertable(),
    aborted: hooks.aborted,
    onDenied: (a) =>
      deps.logger.warn(
        { number: a.parent.number + 1, parent: a.parent.hash },
        "derived block is denied; building its deposits-only replacement",
      ),
  });
}
