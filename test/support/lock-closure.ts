/** Reading package-lock.json as npm resolves it: which installed packages a package's dependencies reach. */
export interface LockEntry {
  readonly link?: boolean;
  readonly resolved?: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export type LockPackages = Record<string, LockEntry>;

/**
 * The lockfile paths (`node_modules/…`) npm installs for the package at `from` ("" = the root): its dependencies
 * (with `dev`, also its devDependencies), then theirs transitively, each resolved by the node_modules lookup.
 */
export function dependencyClosure(packages: LockPackages, from = "", opts: { dev?: boolean } = {}): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string, withDev: boolean): void => {
    const entry = packages[path];
    if (entry === undefined) return;
    const meta = entry.peerDependenciesMeta ?? {};
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter((n) => meta[n]?.optional !== true),
      ...(withDev ? Object.keys(entry.devDependencies ?? {}) : []),
    ];
    for (const name of names) {
      const at = resolveIn(packages, path, name);
      if (at === undefined || seen.has(at)) continue;
      seen.add(at);
      const target = packages[at];
      visit(target?.link === true && target.resolved !== undefined ? target.resolved : at, false);
    }
  };
  visit(from, opts.dev === true);
  return seen;
}

/** Where `name` resolves from the package at `path`: its own node_modules, then each enclosing one. */
function resolveIn(packages: LockPackages, path: string, name: string): string | undefined {
  let dir = path;
  for (;;) {
    const candidate = dir === "" ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (dir === "") return undefined;
    const i = dir.lastIndexOf("/node_modules/");
    dir = i < 0 ? "" : dir.slice(0, i);
  }
}
