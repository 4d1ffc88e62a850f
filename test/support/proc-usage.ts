/**
 * CPU time and resident memory of a process, read from Linux's /proc (for the reference comparisons' per-block CPU
 * and per-chain RSS figures). CPU is user + system time in seconds (fields 14 and 15 of `/proc/<pid>/stat`, in
 * clock ticks of 1/100 s, the Linux default); RSS is `VmRSS` of `/proc/<pid>/status` in MiB, with its two parts:
 * anonymous memory (`RssAnon`: heaps, stacks) and file-backed pages (`RssFile`: the executable's and libraries' code
 * and data read from disk, shared with every process that maps the same file).
 */
import { readFileSync } from "node:fs";

const TICKS_PER_S = 100;

export interface ProcUsage {
  readonly cpuS: number;
  readonly rssMb: number;
  readonly rssAnonMb: number;
  readonly rssFileMb: number;
}

/** The usage of `pid` now; undefined when it is gone (or /proc is not there). */
export function procUsage(pid: number): ProcUsage | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command name (field 2) is in parentheses and may hold spaces: split after its closing one
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cpuS = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const mb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? 0) / 1024;
    return { cpuS, rssMb: mb("VmRSS"), rssAnonMb: mb("RssAnon"), rssFileMb: mb("RssFile") };
  } catch {
    return undefined;
  }
}
