/** `supernode-devnet --fork-offsets`: a per-chain fork schedule relative to L2 genesis, for trying activations. */
import { InvalidArgumentError } from "commander";
import { devnetForkOffsets } from "../config.js";
import { FORKS, type Fork } from "supernode/protocol";

const NAMES: readonly string[] = FORKS;

/**
 * Parses `ecotone=20,isthmus=40,karst=never` (seconds after L2 genesis) into a complete schedule: forks not named
 * follow the fork before them (`devnetForkOffsets`). Throws commander's InvalidArgumentError on a bad entry.
 */
export function parseForkOffsets(spec: string): Partial<Record<Fork, number | undefined>> {
  const overrides: Partial<Record<Fork, number | null>> = {};
  for (const part of spec
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")) {
    const [given, value, ...rest] = part.split("=");
    const name = given === "interop" ? "lagoon" : given; // Lagoon's older name
    const ok = name !== undefined && NAMES.includes(name) && value !== undefined && rest.length === 0;
    if (!ok || !(value === "never" || /^\d+$/.test(value))) {
      throw new InvalidArgumentError(`bad entry "${part}" (want <fork>=<seconds>|never; forks: ${NAMES.join(", ")})`);
    }
    overrides[name as Fork] = value === "never" ? null : Number(value);
  }
  try {
    return devnetForkOffsets(overrides);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
  }
}

/** One line: `regolith…delta +0 s, ecotone…holocene +20 s, isthmus +40 s, jovian +40 s` style grouping. */
export function describeForkOffsets(offsets: Partial<Record<Fork, number | undefined>>): string {
  const groups: { from: Fork; to: Fork; t: number }[] = [];
  for (const f of FORKS) {
    const t = offsets[f];
    if (t === undefined) continue;
    const last = groups.at(-1);
    if (last !== undefined && last.t === t) last.to = f;
    else groups.push({ from: f, to: f, t });
  }
  if (groups.length === 0) return "no forks scheduled";
  return groups.map((g) => `${g.from === g.to ? g.from : `${g.from}…${g.to}`} +${g.t} s`).join(", ");
}

/**
 * `--data-mode blobs` needs Ecotone at genesis: derivation ignores blob transactions before Ecotone, and the devnet
 * batcher posts every frame the same way, so with a later Ecotone the safe head would never advance. Returns the
 * error to print, or undefined when the combination works.
 */
export function dataModeProblem(
  dataMode: "calldata" | "blobs",
  offsets: Partial<Record<Fork, number | undefined>> | undefined,
): string | undefined {
  if (dataMode !== "blobs" || offsets === undefined) return undefined;
  const ecotone = offsets.ecotone;
  if (ecotone === 0) return undefined;
  const when = ecotone === undefined ? "never activates" : `activates at +${ecotone} s`;
  return (
    `--data-mode blobs needs Ecotone at genesis, but with these --fork-offsets Ecotone ${when}: derivation ignores ` +
    "blobs before Ecotone, so the safe head would never advance. Use --data-mode calldata to watch Ecotone " +
    "activate, or leave Ecotone at 0 (ecotone=0) to post blobs."
  );
}
