import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A valid rollup.json for `chainId` (Ecotone scheduled unless `ecotone` is false). */
export function rollupJson(
  chainId: number,
  extra: Record<string, unknown> = {},
  ecotone = true,
): Record<string, unknown> {
  const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
  return {
    genesis: {
      l1: { hash: hex(chainId * 2 + 1, 32), number: 1 },
      l2: { hash: hex(chainId * 2 + 2, 32), number: 0 },
      l2_time: 1_700_000_000,
      system_config: {
        batcherAddr: hex(0xba7c, 20),
        overhead: hex(0, 32),
        scalar: hex(0xf4240, 32),
        gasLimit: 30_000_000,
      },
    },
    block_time: 2,
    max_sequencer_drift: 600,
    seq_window_size: 3600,
    channel_timeout: 300,
    l1_chain_id: 900,
    l2_chain_id: chainId,
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    ...(ecotone ? { ecotone_time: 0 } : {}),
    batch_inbox_address: hex(0xff00 + chainId, 20),
    deposit_contract_address: hex(0xd0, 20),
    l1_system_config_address: hex(0x5c, 20),
    protocol_versions_address: hex(0, 20),
    ...extra,
  };
}

export interface Fixture {
  readonly dir: string;
  readonly jwt: string;
  /** Writes `rollup-<id>.json` and returns its path. */
  rollup(chainId: number, extra?: Record<string, unknown>, ecotone?: boolean): string;
  write(name: string, content: string): string;
  cleanup(): void;
}

export function makeFixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), "supernode-config-"));
  const write = (name: string, content: string): string => {
    const p = join(dir, name);
    writeFileSync(p, content);
    return p;
  };
  const jwt = write("jwt.hex", `0x${"ab".repeat(32)}\n`);
  return {
    dir,
    jwt,
    write,
    rollup: (chainId, extra = {}, ecotone = true) =>
      write(
        `rollup-${chainId}-${Object.keys(extra).join("-")}${ecotone ? "" : "-noeco"}.json`,
        JSON.stringify(rollupJson(chainId, extra, ecotone)),
      ),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Minimal valid argv for chains `ids` (rollup config files, distinct engines, shared JWT, a beacon). */
export function baseArgs(f: Fixture, ids: readonly number[]): string[] {
  const args = ["--chains", ids.join(","), "--l1", "http://127.0.0.1:8545", "--l1.beacon", "http://127.0.0.1:5052"];
  args.push("--vn.all.l2.jwt-secret", f.jwt);
  ids.forEach((id, i) => {
    args.push(`--vn.${id}.rollup.config`, f.rollup(id), `--vn.${id}.l2`, `http://127.0.0.1:${9551 + i}`);
  });
  return args;
}
