/**
 * op-node registers its block validator with a per-topic concurrency of 4 and a timeout of 3 s: a message that
 * arrives while 4 validations of its topic are running is dropped (IGNORE, "validation throttled"), a validation
 * still running after 3 s is abandoned (IGNORE), and a validator that throws REJECTs. One throttle per topic.
 * Synchronous validations finish before the next message is looked at, so they never hit either limit; the limits
 * guard asynchronous ones.
 */
export type Verdict = "accept" | "ignore" | "reject";

export const VALIDATION_CONCURRENCY = 4;
export const VALIDATION_TIMEOUT_MS = 3_000;

export type DropReason = "throttled" | "timeout" | "threw";

export class ValidationThrottle {
  private inFlight = 0;

  constructor(
    private readonly onDrop: (reason: DropReason, err?: unknown) => void = () => {},
    private readonly concurrency = VALIDATION_CONCURRENCY,
    private readonly timeoutMs = VALIDATION_TIMEOUT_MS,
  ) {}

  get running(): number {
    return this.inFlight;
  }

  run(fn: () => Verdict | Promise<Verdict>): Verdict | Promise<Verdict> {
    if (this.inFlight >= this.concurrency) {
      this.onDrop("throttled");
      return "ignore";
    }
    this.inFlight++;
    let out: Verdict | Promise<Verdict>;
    try {
      out = fn();
    } catch (err) {
      this.inFlight--;
      this.onDrop("threw", err);
      return "reject";
    }
    if (typeof out === "string") {
      this.inFlight--;
      return out;
    }
    return this.settle(out);
  }

  private async settle(p: Promise<Verdict>): Promise<Verdict> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.timeoutMs);
    });
    try {
      const r = await Promise.race([p, timeout]);
      if (r === "timeout") {
        this.onDrop("timeout");
        return "ignore";
      }
      return r;
    } catch (err) {
      this.onDrop("threw", err);
      return "reject";
    } finally {
      clearTimeout(timer);
      this.inFlight--;
    }
  }
}
