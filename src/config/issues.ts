import { SupernodeError } from "../core/errors/supernode-error.js";
import { redactSecretLike } from "../observability/log-redact.js";

/** One configuration problem: which option (as the operator wrote or should write it), which chain, what. */
export interface ConfigIssue {
  /** Option in flag form, e.g. `--vn.10.l2` or `--chains`. */
  readonly option?: string;
  /** Decimal chain ID the problem belongs to. */
  readonly chain?: string;
  readonly message: string;
}

/** A non-fatal notice produced while resolving the configuration (logged once the logger exists). */
export interface ConfigWarning {
  readonly msg: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** `--vn.10.l2 (chain 10): message`. Anything that looks like a secret (64 hex digits) is printed `[redacted]`. */
export function formatIssue(issue: ConfigIssue): string {
  const where = [issue.option, issue.chain === undefined ? undefined : `(chain ${issue.chain})`]
    .filter((s) => s !== undefined)
    .join(" ");
  return redactSecretLike(where === "" ? issue.message : `${where}: ${issue.message}`);
}

/** The whole list of problems, one per line, as printed before exiting. */
export function formatIssues(issues: readonly ConfigIssue[]): string {
  const head = `invalid configuration (${issues.length} problem${issues.length === 1 ? "" : "s"}):`;
  return [head, ...issues.map((i) => `  - ${formatIssue(i)}`)].join("\n");
}

/** Thrown when the configuration has problems; carries all of them. */
export class ConfigError extends SupernodeError {
  readonly issues: readonly ConfigIssue[];
  constructor(issues: readonly ConfigIssue[]) {
    super("CONFIG", formatIssues(issues), { severity: "critical" });
    this.issues = issues;
  }
}
