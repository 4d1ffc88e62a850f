import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Session } from "node:inspector/promises";
import { getHeapSnapshot } from "node:v8";
import { HttpEndpoint, listenHttp } from "./http-listen.js";

/**
 * On-demand profiling over HTTP (`--pprof.enabled`, `--pprof.addr`, `--pprof.port`):
 * - `GET /debug/pprof/profile?seconds=N` → a V8 CPU profile (`.cpuprofile` JSON) sampled for N seconds (default 30,
 *   at most 300); open it in Chrome DevTools (Performance → Load profile) or https://www.speedscope.app;
 * - `GET /debug/pprof/heap` → a V8 heap snapshot (`.heapsnapshot`); open it in Chrome DevTools (Memory → Load);
 * - `GET /debug/pprof/` → an index. One profile at a time (a second concurrent request gets 409).
 * Bind it to loopback or a trusted network only: profiles reveal memory contents.
 */
export interface PprofOptions {
  readonly addr: string;
  readonly port: number;
}

export const MAX_PROFILE_SECONDS = 300;
const INDEX = [
  "supernode profiling endpoints",
  "  /debug/pprof/profile?seconds=N   CPU profile (.cpuprofile; Chrome DevTools or speedscope)",
  "  /debug/pprof/heap                heap snapshot (.heapsnapshot; Chrome DevTools Memory tab)",
  "",
].join("\n");

export class PprofServer extends HttpEndpoint {
  static async listen(opts: PprofOptions): Promise<PprofServer> {
    let busy = false;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://localhost");
      const path = url.pathname.replace(/\/+$/, "");
      if (req.method !== "GET") return void res.writeHead(405).end("method not allowed\n");
      if (path === "/debug/pprof") return void res.writeHead(200, { "content-type": "text/plain" }).end(INDEX);
      if (path !== "/debug/pprof/profile" && path !== "/debug/pprof/heap") {
        return void res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found\n");
      }
      const secondsParam = url.searchParams.get("seconds");
      const seconds = secondsParam === null ? 30 : Number(secondsParam);
      if (path.endsWith("/profile") && (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_PROFILE_SECONDS)) {
        return void res
          .writeHead(400, { "content-type": "text/plain" })
          .end(`seconds must be in (0, ${MAX_PROFILE_SECONDS}]\n`);
      }
      if (busy) return void res.writeHead(409, { "content-type": "text/plain" }).end("a profile is already running\n");
      busy = true;
      const done = () => {
        busy = false;
      };
      if (path === "/debug/pprof/heap") return serveHeap(res, done);
      serveCpuProfile(req, res, seconds).finally(done);
    });
    const port = await listenHttp(server, opts.port, opts.addr);
    return new PprofServer(server, opts.addr, port, "/debug/pprof/", 0);
  }
}

async function serveCpuProfile(req: IncomingMessage, res: ServerResponse, seconds: number): Promise<void> {
  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, seconds * 1000);
      req.socket.once("close", () => {
        clearTimeout(t);
        resolve();
      });
    });
    const { profile } = await session.post("Profiler.stop");
    if (res.destroyed) return;
    res
      .writeHead(200, {
        "content-type": "application/json",
        "content-disposition": `attachment; filename="supernode-${Date.now()}.cpuprofile"`,
      })
      .end(JSON.stringify(profile));
  } catch (err) {
    if (!res.headersSent)
      res.writeHead(500, { "content-type": "text/plain" }).end(`profiling failed: ${String(err)}\n`);
  } finally {
    session.disconnect();
  }
}

function serveHeap(res: ServerResponse, done: () => void): void {
  try {
    const snapshot = getHeapSnapshot();
    res.writeHead(200, {
      "content-type": "application/json",
      "content-disposition": `attachment; filename="supernode-${Date.now()}.heapsnapshot"`,
    });
    snapshot.pipe(res);
    snapshot.once("end", done);
    snapshot.once("error", done);
    res.once("close", done);
  } catch (err) {
    done();
    res.writeHead(500, { "content-type": "text/plain" }).end(`heap snapshot failed: ${String(err)}\n`);
  }
}
