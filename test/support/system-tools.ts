/**
 * System tools some tests drive for real (`promtool`/`prometheus` from Debian's `prometheus` package, `chromium`,
 * `kubectl`). `.ci/run` installs them. Locally a missing tool skips those tests with a note; in CI (`CI=true`) a
 * missing tool fails them with the install command instead of skipping silently.
 */
import { execFileSync } from "node:child_process";
import { describe, it } from "vitest";

export const TOOL_INSTALL: Readonly<Record<string, string>> = {
  promtool: "apt-get install -y prometheus",
  prometheus: "apt-get install -y prometheus",
  chromium: "apt-get install -y chromium",
  kubectl: "install kubectl (it provides `kubectl kustomize`)",
  openssl: "apt-get install -y openssl",
};

/** Absolute path of `name` on the PATH, or undefined. */
export function findTool(name: string): string | undefined {
  try {
    const out = execFileSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
    return out === "" ? undefined : out;
  } catch {
    return undefined;
  }
}

const inCi = process.env.CI === "true" || process.env.CI === "1";

/**
 * `describe` for a suite that needs `tools`: runs it when all are present; in CI fails it when one is missing;
 * elsewhere skips it and says why.
 */
export function describeWithTools(tools: readonly string[], name: string, fn: (paths: Record<string, string>) => void) {
  const paths: Record<string, string> = {};
  const missing: string[] = [];
  for (const t of tools) {
    const p = findTool(t);
    if (p === undefined) missing.push(t);
    else paths[t] = p;
  }
  if (missing.length === 0) return describe(name, () => fn(paths));
  const how = missing.map((t) => `${t}: ${TOOL_INSTALL[t] ?? "install it"}`).join("; ");
  if (inCi) {
    return describe(name, () => {
      it(`needs ${missing.join(", ")}`, () => {
        throw new Error(`required tool missing in CI (${how}); .ci/run installs it`);
      });
    });
  }
  console.warn(`[skip] ${name}: missing ${how}`);
  return describe.skip(name, () => fn(paths));
}
