/**
 * The build phase's floor control: what one built block's exchange with the EL costs a Node process on this
 * machine at this moment with no node logic at all, measured in the same run as the built blocks.
 *
 * A built block is one round trip to the EL (the build-start batch, docs/performance.md), during which the node's thread
 * sleeps while the EL executes the block. The control does exactly that and nothing else: over one keep-alive
 * loopback connection a client process (floor-client.mjs) writes a prebuilt request of the size of a built block's
 * (bytes the EL read per block in the measured run, from its /proc/<pid>/io) and waits for an answer of the same
 * size as the EL's (bytes it wrote) from a peer process (floor-peer.mjs) that keeps a core busy for as long as the EL
 * spent per block. No JSON, no hashing, no derivation: the figure is the machine's price of the sleep, the wake-up
 * and the kernel's copies, which no client can go under. The node's own work per built block is its figure minus
 * this one. The client is a process of its own, so that its sockets cannot change the feedback V8 keeps for the
 * Node stream code the node uses too (run in the bench process, Node's `onStreamRead`, `emitReadable_`, `flow` and
 * `addListener` were among the "wrong map" deoptimizations of the measured runs; A/B at load 2–2.7 could not tell
 * the two apart: docs/performance.md).
 */
import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** What one block's exchange with the EL looked like in a measured run. */
export interface BlockExchange {
  /** Bytes the node sent per block (the EL's reads). */
  readonly requestBytes: number;
  /** Bytes the EL answered per block. */
  readonly responseBytes: number;
  /** CPU µs the EL's process used per block. */
  readonly elBusyUs: number;
}

export interface FloorControl {
  /**
   * `trips` round trips; returns the CPU seconds the client process used for them (every thread), after checking
   * that they exchanged exactly the block's bytes.
   */
  run(trips: number): Promise<number>;
  stop(): Promise<void>;
}

const here = fileURLToPath(new URL(".", import.meta.url));

export async function startFloorControl(x: BlockExchange): Promise<FloorControl> {
  const request = Math.round(x.requestBytes);
  const response = Math.round(x.responseBytes);
  const peer = spawn(
    process.execPath,
    [join(here, "floor-peer.mjs"), "--busy-us", String(Math.round(x.elBusyUs)), "--response-bytes", String(response)],
    { stdio: ["ignore", "pipe", "inherit", "ipc"] }, // ends with the bench, however it ends
  );
  const exited = new Promise((r) => peer.once("exit", r));
  const stop = async () => {
    peer.kill("SIGTERM");
    await exited;
  };
  try {
    const port = await new Promise<string>((resolve, reject) => {
      createInterface({ input: peer.stdout! }).once("line", resolve);
      peer.once("exit", (code) => reject(new Error(`floor peer exited (${code})`)));
    });
    return {
      async run(trips) {
        const args = ["--port", port, "--request-bytes", String(request)];
        args.push("--warmup", "200", "--trips", String(trips));
        const { stdout } = await promisify(execFile)(process.execPath, [join(here, "floor-client.mjs"), ...args]);
        const r = JSON.parse(stdout) as { cpuUs: number; sent: number; received: number };
        const want = { sent: trips * request, received: trips * response };
        if (r.sent !== want.sent || r.received !== want.received)
          throw new Error(`floor control: exchanged ${r.sent}/${r.received} bytes, not ${want.sent}/${want.received}`);
        return r.cpuUs / 1e6;
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
