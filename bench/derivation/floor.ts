/**
 * The build phase's floor control: what one built block's exchange with the EL costs a Node process on this
 * machine at this moment with no node logic at all, measured in the same run as the built blocks.
 *
 * A built block is one round trip to the EL (the build-start batch, ADR 0094), during which the node's thread
 * sleeps while the EL executes the block. The control does exactly that and nothing else: over one keep-alive
 * loopback connection it writes a prebuilt request of the same size as a built block's (bytes the EL read per block
 * in the measured run, from its /proc/<pid>/io), and waits for a response of the same size (bytes the EL wrote)
 * from a peer process (floor-peer.mjs) that keeps a core busy for as long as the EL spent per block. No JSON, no
 * hashing, no derivation: the figure is the machine's price of the sleep, the wake-up and the kernel's copies, which
 * no client can go under. The node's own work per built block is its figure minus this one.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { connect, type Socket } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

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
  /** `trips` round trips; returns the CPU seconds this process used for them (every thread). */
  run(trips: number): Promise<number>;
  stop(): Promise<void>;
}

const HEAD_BYTES = 90;

export async function startFloorControl(x: BlockExchange): Promise<FloorControl> {
  const bodyBytes = Math.max(0, Math.round(x.requestBytes) - HEAD_BYTES);
  const answerBodyBytes = Math.max(0, Math.round(x.responseBytes) - HEAD_BYTES);
  const peer = spawn(
    process.execPath,
    [
      join(fileURLToPath(new URL(".", import.meta.url)), "floor-peer.mjs"),
      "--busy-us",
      String(Math.round(x.elBusyUs)),
      "--response-bytes",
      String(answerBodyBytes),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise((r) => peer.once("exit", r));
  try {
    const port = Number(
      await new Promise<string>((resolve, reject) => {
        createInterface({ input: peer.stdout }).once("line", resolve);
        peer.once("exit", (code) => reject(new Error(`floor peer exited (${code})`)));
      }),
    );
    const socket = connect(port, "127.0.0.1");
    socket.setNoDelay(true);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const request = Buffer.concat([
      Buffer.from(
        `POST / HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${bodyBytes}\r\n\r\n`,
        "latin1",
      ),
      Buffer.alloc(bodyBytes, 0x62),
    ]);
    const exchange = roundTrips(socket, request, answerBodyBytes);
    await exchange(50); // the connection and this code warm
    return {
      async run(trips) {
        const u0 = process.cpuUsage();
        await exchange(trips);
        const u = process.cpuUsage(u0);
        return (u.user + u.system) / 1e6;
      },
      async stop() {
        socket.destroy();
        peer.kill("SIGTERM");
        await exited;
      },
    };
  } catch (e) {
    peer.kill("SIGTERM");
    await exited;
    throw e;
  }
}

/** Sends `request` and waits for the whole answer (its head, then `bodyBytes` bytes), `n` times in sequence. */
function roundTrips(socket: Socket, request: Buffer, bodyBytes: number) {
  let need = -1;
  let got = 0;
  let done: (() => void) | undefined;
  let failed: Error | undefined;
  socket.on("error", (e) => {
    failed = e;
    done?.();
  });
  socket.on("data", (chunk: Buffer) => {
    got += chunk.length;
    if (need < 0) {
      const end = chunk.indexOf("\r\n\r\n");
      if (end < 0) throw new Error("floor control: the answer's head came in pieces");
      need = end + 4 + bodyBytes;
    }
    if (got < need) return;
    if (got > need) throw new Error("floor control: more bytes than one answer");
    need = -1;
    got = 0;
    done?.();
  });
  return async (n: number) => {
    for (let i = 0; i < n; i++) {
      await new Promise<void>((resolve) => {
        done = resolve;
        socket.write(request);
      });
      if (failed !== undefined) throw failed;
    }
  };
}
