import type { Http1Request, Http1Response } from "./http1-server.js";

/** How long a browser may cache a preflight answer (seconds), as geth's HTTP server allows. */
const PREFLIGHT_MAX_AGE = 600;

/**
 * Cross-origin access to a JSON-RPC port (`--http.corsdomain`): the origins allowed (`*` = any). A browser page's
 * request from an allowed origin gets `Access-Control-Allow-Origin`; its preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) is answered 204 with the methods (POST, GET) and the headers it asked for.
 */
export class CorsPolicy {
  readonly #any: boolean;
  readonly #origins: ReadonlySet<string>;

  constructor(domains: readonly string[]) {
    const list = domains.map((d) => d.trim()).filter((d) => d !== "");
    this.#any = list.includes("*");
    this.#origins = new Set(list.map((d) => d.toLowerCase()));
  }

  get enabled(): boolean {
    return this.#any || this.#origins.size > 0;
  }

  /** The headers for a response to `req`; undefined for requests without an allowed `Origin`. */
  headers(req: Http1Request): Record<string, string> | undefined {
    const origin = req.headers.origin;
    if (origin === undefined) return undefined;
    if (this.#any) return { "Access-Control-Allow-Origin": "*" };
    if (!this.#origins.has(origin.toLowerCase())) return undefined;
    return { "Access-Control-Allow-Origin": origin, Vary: "Origin" };
  }

  /** The answer to a CORS preflight, or undefined when `req` is none (or its origin is not allowed). */
  preflight(req: Http1Request): Http1Response | undefined {
    if (req.method !== "OPTIONS" || req.headers["access-control-request-method"] === undefined) return undefined;
    const allow = this.headers(req);
    if (allow === undefined) return undefined;
    return {
      status: 204,
      headers: {
        ...allow,
        "Access-Control-Allow-Methods": "POST, GET",
        "Access-Control-Allow-Headers": req.headers["access-control-request-headers"] ?? "content-type",
        "Access-Control-Max-Age": String(PREFLIGHT_MAX_AGE),
      },
      body: "",
    };
  }
}
