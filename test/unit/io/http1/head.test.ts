import { describe, expect, it } from "vitest";
import { parseResponseHead } from "../../../../src/io/http1/head.js";

describe("parseResponseHead", () => {
  it("reads the status line and the three framing fields, names in any case", () => {
    expect(
      parseResponseHead(
        "HTTP/1.1 200 OK\r\nDate: x\r\nContent-Length: 42\r\nCONNECTION: Keep-Alive\r\nx-other-field-name: 1",
      ),
    ).toEqual({ status: 200, minor: 1, length: 42, chunked: false, connection: "keep-alive" });
    expect(parseResponseHead("HTTP/1.0 503 Busy")).toEqual({
      status: 503,
      minor: 0,
      length: undefined,
      chunked: false,
      connection: "",
    });
  });

  it("is chunked only when chunked is the last transfer coding", () => {
    expect(parseResponseHead("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked")?.chunked).toBe(true);
    expect(parseResponseHead("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, gzip")?.chunked).toBe(false);
  });

  it("gives content-length as a number, NaN when it is not one", () => {
    expect(parseResponseHead("HTTP/1.1 200 OK\r\ncontent-length: 12abc")?.length).toBeNaN();
    expect(parseResponseHead("HTTP/1.1 100 Continue")?.status).toBe(100);
  });

  it("skips a field whose colon is not right after its name", () => {
    expect(parseResponseHead("HTTP/1.1 200 OK\r\ncontent-length : 5")?.length).toBeUndefined();
    expect(parseResponseHead("HTTP/1.1 200 OK\r\nx-content-length: 5")?.length).toBeUndefined();
  });

  it("refuses a bad status line", () => {
    for (const bad of ["HTTP/2.0 200 OK", "HTTP/1.2 200 OK", "HTTP/1.1 2x0 OK", "HTTP/1.1200 OK", "ICY 200 OK", ""])
      expect(parseResponseHead(bad), bad).toBeUndefined();
  });
});
