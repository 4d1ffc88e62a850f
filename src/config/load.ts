import { type BuildOptions, buildConfig } from "./build-config.js";
import type { ConfigIssue, ConfigWarning } from "./issues.js";
import { type Env, resolveOptions } from "./resolve-options.js";
import type { SupernodeConfig } from "./types.js";

export type LoadResult =
  | { readonly ok: true; readonly config: SupernodeConfig; readonly warnings: readonly ConfigWarning[] }
  | { readonly ok: false; readonly issues: readonly ConfigIssue[]; readonly warnings: readonly ConfigWarning[] };

/**
 * Loads the supernode configuration from command-line arguments (without the program name and command) and
 * environment variables: expands `--vn.<id>.*` / `--vn.all.*`, applies the precedence per-chain flag >
 * per-chain env > all-chains flag > all-chains env > default, reads rollup configs, networks and JWT secrets,
 * and validates everything. Returns every problem found, not only the first.
 */
export function loadConfig(argv: readonly string[], env: Env, opts: BuildOptions = {}): LoadResult {
  const resolved = resolveOptions(argv, env);
  const { config, issues, warnings } = buildConfig(resolved, opts);
  if (config === undefined || issues.length > 0) return { ok: false, issues, warnings };
  return { ok: true, config, warnings };
}
