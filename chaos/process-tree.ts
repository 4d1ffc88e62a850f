/** The processes below a process, and whether one still runs (Linux /proc; a zombie counts as gone). */
import { readdirSync, readFileSync } from "node:fs";

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z");
  } catch {
    return false;
  }
}

export function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      parentOf.set(Number(e), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const [pid, ppid] of parentOf)
      if (ppid === p) {
        out.push(pid);
        walk(pid);
      }
  };
  walk(root);
  return out;
}

/** Polls until none of `pids` runs or `timeoutMs` passes; returns those still running. */
export async function survivors(pids: readonly number[], timeoutMs: number): Promise<number[]> {
  const end = Date.now() + timeoutMs;
  let left = pids.filter(alive);
  while (left.length > 0 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 200));
    left = left.filter(alive);
  }
  return left;
}
