import { createServer } from "node:http";
import type { Registry } from "prom-client";
import { HttpEndpoint, listenHttp } from "./http-listen.js";

/**
 * A Prometheus scrape endpoint: `GET /metrics` (also `/metrics/…`) serves the text exposition of the registry, or,
 * with `chainId`, only that chain's series (those labelled `chain_id="<id>"`). Every other path is a 404.
 */
export interface MetricsServerOptions {
  readonly addr: string;
  readonly port: number;
  /** Serve only the series of this chain (per-chain `--vn.<id>.metrics.*` endpoint). */
  readonly chainId?: string;
}

export class MetricsServer extends HttpEndpoint {
  static async listen(opts: MetricsServerOptions, registry: Registry): Promise<MetricsServer> {
    const server = createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const first = path.split("/").filter((s) => s !== "")[0];
      if (first !== "metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
        res.writeHead(404, { "content-type": "text/plain" }).end("404 page not found\n");
        return;
      }
      registry.metrics().then(
        (text) => {
          const body = opts.chainId === undefined ? text : filterChain(text, opts.chainId);
          res.writeHead(200, { "content-type": registry.contentType }).end(body);
        },
        (err: unknown) => {
          res.writeHead(500, { "content-type": "text/plain" }).end(`metrics collection failed: ${String(err)}\n`);
        },
      );
    });
    server.keepAliveTimeout = 5_000;
    return new MetricsServer(server, opts.addr, await listenHttp(server, opts.port, opts.addr), "/metrics", 1_000);
  }
}

/** Keeps the samples labelled with `chain_id="<id>"` and the HELP/TYPE lines of families that have any. */
export function filterChain(text: string, chainId: string): string {
  const needle = `chain_id="${chainId}"`;
  const out: string[] = [];
  let header: string[] = [];
  let familyHasSample = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("# HELP ")) {
      header = [line];
      familyHasSample = false;
    } else if (line.startsWith("# ")) {
      header.push(line);
    } else if (line.includes(needle)) {
      if (!familyHasSample) out.push(...header);
      familyHasSample = true;
      out.push(line);
    }
  }
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}
