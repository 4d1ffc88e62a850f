/**
 * The sequencer's admin state machine (`admin_startSequencer`, `admin_stopSequencer`, `admin_sequencerActive`),
 * pure: no I/O, no timers. Persistence and block building are done by the caller.
 *
 *   disabled ──(any start/stop)──► error "sequencer is not enabled"
 *   stopped  ──start(hash?)──► active      (errors: no prestate / block hash does not match)
 *   active   ──stop()──► stopped           (returns the head hash to restart from)
 *   active   ──start──► error "sequencer already running"
 *   stopped  ──stop──► error "sequencer not running"
 */
import type { Hash } from "../../core/types/primitives.js";
import type { L2BlockRef } from "../../core/types/block-ref.js";
import { NodeRpcError } from "../errors.js";

export type SequencerMode = "disabled" | "stopped" | "active";

export class SequencerState {
  private mode: SequencerMode;

  constructor(enabled: boolean, startActive: boolean) {
    this.mode = !enabled ? "disabled" : startActive ? "active" : "stopped";
  }

  get enabled(): boolean {
    return this.mode !== "disabled";
  }

  get active(): boolean {
    return this.mode === "active";
  }

  get current(): SequencerMode {
    return this.mode;
  }

  /** Throws the RPC error `sequencer is not enabled` when this chain has no sequencer. */
  requireEnabled(): void {
    if (this.mode === "disabled") throw new NodeRpcError("SEQUENCER_DISABLED", "sequencer is not enabled");
  }

  /** Checks a start request against the current unsafe head; throws the RPC error, or returns to confirm. */
  checkStart(head: L2BlockRef | undefined, expected?: Hash): void {
    this.requireEnabled();
    if (this.mode === "active") throw new NodeRpcError("SEQUENCER_RUNNING", "sequencer already running");
    if (head === undefined) {
      throw new NodeRpcError(
        "SEQUENCER_NO_PRESTATE",
        `no prestate, cannot determine if sequencer start at ${expected ?? "the unsafe head"} is safe`,
      );
    }
    if (expected !== undefined && expected.toLowerCase() !== head.hash.toLowerCase()) {
      throw new NodeRpcError(
        "SEQUENCER_HASH_MISMATCH",
        `block hash does not match: head ${head.hash}:${head.number}, received ${expected}`,
      );
    }
  }

  confirmStart(): void {
    this.mode = "active";
  }

  checkStop(): void {
    this.requireEnabled();
    if (this.mode === "stopped") throw new NodeRpcError("SEQUENCER_NOT_RUNNING", "sequencer not running");
  }

  confirmStop(): void {
    this.mode = "stopped";
  }
}
