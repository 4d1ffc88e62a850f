/** What a POST gives back (both transports: http1/post.ts and json-rpc/http-post.ts). */
export interface PostResult {
  readonly status: number;
  readonly text: string;
}

/** The request took longer than its `timeoutMs` (name "TimeoutError", as an `AbortSignal.timeout` abort). */
export class PostTimeoutError extends Error {
  constructor(ms: number) {
    super(`request timed out after ${ms} ms`);
    this.name = "TimeoutError";
  }
}
