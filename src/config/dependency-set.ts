import { readFileSync } from "node:fs";
import {
  type DependencySet,
  describeDependencySet,
  makeDependencySet,
  parseDependencySet,
  sameDependencySet,
} from "../protocol/interop/dependency-set.js";
import type { ConfigIssue } from "./issues.js";

/** One place a dependency set may come from: the top-level flag or a chain's `interop.dependency-set`. */
export interface DependencySetSource {
  /** The option as the user wrote it (for messages). */
  readonly option: string;
  readonly chain?: string;
  readonly path: string;
}

function load(src: DependencySetSource, issues: ConfigIssue[]): DependencySet | undefined {
  let text: string;
  try {
    text = readFileSync(src.path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    issues.push({
      option: src.option,
      ...(src.chain !== undefined ? { chain: src.chain } : {}),
      message:
        code === "ENOENT"
          ? `dependency set file ${src.path} does not exist`
          : `cannot read dependency set file ${src.path}`,
    });
    return undefined;
  }
  try {
    return parseDependencySet(text);
  } catch (e) {
    issues.push({
      option: src.option,
      ...(src.chain !== undefined ? { chain: src.chain } : {}),
      message: `${src.path}: ${(e as Error).message}`,
    });
    return undefined;
  }
}

/**
 * Resolves the dependency set: every given file is loaded and validated; they must all describe the same set
 * (chains and expiry window); without any file the set is the hosted chains. The supernode checks every message
 * itself, so every chain of the set must be hosted. Problems are appended to `issues` (undefined returned).
 */
export function resolveDependencySet(
  sources: readonly DependencySetSource[],
  hosted: readonly bigint[],
  issues: ConfigIssue[],
): DependencySet | undefined {
  const before = issues.length;
  const loaded: { src: DependencySetSource; set: DependencySet }[] = [];
  for (const src of sources) {
    const set = load(src, issues);
    if (set !== undefined) loaded.push({ src, set });
  }
  if (issues.length > before) return undefined;
  const first = loaded[0];
  if (first === undefined) return makeDependencySet(hosted);
  for (const o of loaded.slice(1)) {
    if (!sameDependencySet(first.set, o.set)) {
      issues.push({
        option: o.src.option,
        ...(o.src.chain !== undefined ? { chain: o.src.chain } : {}),
        message: `dependency set ${describeDependencySet(o.set)} differs from ${describeDependencySet(first.set)} (${first.src.option}); all chains must agree`,
      });
    }
  }
  const hostedSet = new Set(hosted);
  const missing = first.set.chainIds.filter((id) => !hostedSet.has(id));
  if (missing.length > 0) {
    issues.push({
      option: first.src.option,
      message: `dependency set names chains this supernode does not host: ${missing.join(", ")} (add them to --chains)`,
    });
  }
  const outside = hosted.filter((id) => !first.set.chainIds.includes(id));
  if (outside.length > 0) {
    issues.push({
      option: first.src.option,
      message: `hosted chains missing from the dependency set: ${outside.join(", ")}`,
    });
  }
  return issues.length > before ? undefined : first.set;
}
