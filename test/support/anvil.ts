/**
 * Test helper: start a real anvil L1 on a dynamic loopback port and stop it after the suite.
 * Thin wrapper over `packages/devnet/src/l1/anvil.ts` (owned by the devnet L1 engineer); reuse it rather than spawning anvil
 * yourself.
 *
 *   const l1 = useAnvil({ blockTimeSec: 0 });          // inside a describe block
 *   it("...", async () => { await l1().mine(3); ... });
 */
import { afterAll, beforeAll } from "vitest";
import { Anvil, type AnvilOptions } from "supernode-devnet/l1/anvil";

export { Anvil, type AnvilOptions };

/** Starts anvil with `opts` (default: automine, i.e. `blockTimeSec: 0`). */
export async function startAnvil(opts: AnvilOptions = {}): Promise<Anvil> {
  return Anvil.start({ blockTimeSec: 0, ...opts });
}

/** Registers beforeAll/afterAll hooks; returns a getter for the running anvil. */
export function useAnvil(opts: AnvilOptions = {}): () => Anvil {
  let anvil: Anvil | undefined;
  beforeAll(async () => {
    anvil = await startAnvil(opts);
  });
  afterAll(async () => {
    await anvil?.stop();
  });
  return () => {
    if (anvil === undefined) throw new Error("anvil not started (use inside a test)");
    return anvil;
  };
}
