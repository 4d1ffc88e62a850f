/**
 * Connection exhaustion: 1,100 idle connections from one client (bound to 127.0.0.2) to the verifier's RPC port,
 * then another client (127.0.0.1) asks `/healthz` and a JSON-RPC call. `health_reachable_under_exhaustion` is 1
 * when both answer (within 5 s each), else 0.
 */
import { connect, type Socket } from "node:net";
import { type Ctx, note } from "../context.js";
import { rpc } from "../probe.js";
import { CHAINS } from "../world.js";

const HOLD = 1_100;

function open(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const s = connect({ port, host: "127.0.0.1", localAddress: "127.0.0.2" });
    s.on("error", () => {});
    s.once("connect", () => resolve(s));
    s.once("close", () => resolve(s));
  });
}

export async function exhaustionScenario(ctx: Ctx): Promise<void> {
  const node = ctx.world.node("ver");
  const port = Number(new URL(node.rpcUrl).port);
  const held: Socket[] = [];
  try {
    for (let i = 0; i < HOLD; i += 100)
      held.push(...(await Promise.all(Array.from({ length: Math.min(100, HOLD - i) }, () => open(port)))));
    const health = await fetch(`${node.rpcUrl}/healthz`, { signal: AbortSignal.timeout(5_000) })
      .then((r) => r.status)
      .catch((err: unknown) => String(err));
    const call = await rpc<unknown>(`${node.rpcUrl}/${CHAINS[0]!.chainId}/`, "stack_syncStatus").then(
      () => "answered",

      (err: unknown) => `error ${String(err)}`,
    );
    const ok = health === 200 && !String(call).startsWith("error");
    ctx.figures.set("health_reachable_under_exhaustion", ok ? 1 : 0);
    const stillOpen = held.filter((s) => !s.destroyed && s.readyState === "open").length;
    note(`exhaustion: ${HOLD} connections from 127.0.0.2 (${stillOpen} kept open); /healthz ${health}, RPC ${call}`);
  } finally {
    for (const s of held) s.destroy();
  }
}
