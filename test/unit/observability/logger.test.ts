import { describe, expect, it } from "vitest";
import type { LogFormat } from "../../../src/config/types.js";
import { type Logger, logsAt, silentLogger } from "../../../src/core/logger.js";
import { chainLogger, createLogger, parseLogLevel } from "../../../src/observability/logger.js";

const T0 = Date.UTC(2026, 10, 21, 12, 45, 1, 123); // 2026-11-21T12:45:01.123Z

function capture(format: LogFormat, opts: { level?: "trace" | "info" | "crit"; color?: boolean } = {}) {
  const lines: string[] = [];
  const logger = createLogger({
    level: opts.level ?? "trace",
    format,
    color: opts.color ?? false,
    now: () => T0,
    destination: { write: (s: string) => void lines.push(...s.split("\n").filter((l) => l !== "")) },
  });
  return { logger, lines };
}

/** Parses a logfmt line into key → value (values unquoted). */
function parseLogfmt(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    const v = m[2] as string;
    out[m[1] as string] = v.startsWith('"') ? (JSON.parse(v) as string) : v;
  }
  return out;
}

/** Parses a terminal line: `LVL [MM-DD|HH:MM:SS.mmm] message   k=v ...`. */
function parseTerminal(line: string): { level: string; time: string; msg: string; fields: Record<string, string> } {
  const m = /^(TRACE|DEBUG|INFO |WARN |ERROR|CRIT ) \[(\d\d-\d\d\|\d\d:\d\d:\d\d\.\d\d\d)\] (.*)$/.exec(line);
  if (!m) throw new Error(`not a terminal line: ${line}`);
  const rest = m[3] as string;
  const firstKv = rest.search(/ {2,}\S+=|\s\S+=(?=\S)/);
  const msg = (firstKv < 0 ? rest : rest.slice(0, firstKv)).trimEnd();
  return {
    level: (m[1] as string).trim(),
    time: m[2] as string,
    msg,
    fields: firstKv < 0 ? {} : parseLogfmt(rest.slice(firstKv)),
  };
}

describe("createLogger formats", () => {
  it.each(["json", "jsonms"] as const)("%s: one JSON object per line with t, lvl, msg and fields", (format) => {
    const { logger, lines } = capture(format);
    logger.child({ chain: "10" }).info({ head: 5, hash: "0xab" }, "derived block");
    logger.crit({ n: 7n }, "fatal thing");
    expect(lines).toHaveLength(2);
    const a = JSON.parse(lines[0] as string);
    expect(a).toEqual({
      t: format === "json" ? "2026-11-21T12:45:01Z" : "2026-11-21T12:45:01.123Z",
      lvl: "info",
      msg: "derived block",
      chain: "10",
      head: 5,
      hash: "0xab",
    });
    const b = JSON.parse(lines[1] as string);
    expect(b.lvl).toBe("crit");
    expect(b.n).toBe("7");
  });

  it.each(["logfmt", "logfmtms"] as const)("%s: key=value with t, lvl, msg first", (format) => {
    const { logger, lines } = capture(format);
    logger.child({ chain: "8453" }).warn({ reason: "two words", eq: "a=b", empty: "" }, "engine slow");
    const kv = parseLogfmt(lines[0] as string);
    expect(kv).toEqual({
      t: format === "logfmt" ? "2026-11-21T12:45:01+0000" : "2026-11-21T12:45:01.123+0000",
      lvl: "warn",
      msg: "engine slow",
      chain: "8453",
      reason: "two words",
      eq: "a=b",
      empty: "",
    });
    expect((lines[0] as string).startsWith("t=")).toBe(true);
  });

  it.each(["text", "terminal"] as const)("%s: Go-style `LVL [MM-DD|HH:MM:SS.mmm] message key=value`", (format) => {
    const { logger, lines } = capture(format);
    logger.child({ chain: "10" }).info({ number: 42 }, "new head");
    logger.error("no fields");
    const a = parseTerminal(lines[0] as string);
    expect(a).toEqual({
      level: "INFO",
      time: "11-21|12:45:01.123",
      msg: "new head",
      fields: { chain: "10", number: "42" },
    });
    expect(lines[0]).toMatch(/^INFO {2}\[11-21\|12:45:01\.123\] new head {2,}chain=10 number=42$/);
    expect(parseTerminal(lines[1] as string)).toMatchObject({ level: "ERROR", msg: "no fields", fields: {} });
    expect(lines[0]).not.toContain("\x1b[");
  });

  it("--log.color forces ANSI colours", () => {
    const { logger, lines } = capture("terminal", { color: true });
    logger.warn({ a: 1 }, "coloured");
    expect(lines[0]).toContain("\x1b[33mWARN \x1b[0m");
    const lf = capture("logfmt", { color: true });
    lf.logger.error("x");
    expect(lf.lines[0]).toContain("\x1b[31merror\x1b[0m");
  });

  it("renders errors by message in text formats and serialises them in JSON", () => {
    const t = capture("text");
    t.logger.error({ err: new Error("dial failed") }, "L1 unreachable");
    expect(parseTerminal(t.lines[0] as string).fields.err).toBe("dial failed");
    const j = capture("json");
    j.logger.error({ err: new Error("dial failed") }, "L1 unreachable");
    expect(JSON.parse(j.lines[0] as string).err).toMatchObject({ type: "Error", message: "dial failed" });
  });
});

describe("createLogger levels and secrets", () => {
  it("filters below the configured level; crit is above error", () => {
    const { logger, lines } = capture("json", { level: "crit" });
    logger.error("dropped");
    logger.crit("kept");
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["kept"]);
    const info = capture("json", { level: "info" });
    info.logger.debug("dropped");
    info.logger.trace("dropped");
    info.logger.info("kept");
    info.logger.warn("kept");
    expect(info.lines).toHaveLength(2);
  });

  it("tells which levels it writes (the per-block call sites skip building a disabled line's fields)", () => {
    const levels = ["trace", "debug", "info", "warn", "error"] as const;
    for (const configured of ["trace", "info", "crit"] as const) {
      const { logger, lines } = capture("logfmt", { level: configured });
      for (const l of [logger, chainLogger(logger, 10)]) {
        for (const level of levels) {
          const before = lines.length;
          l[level]("probe");
          expect(logsAt(l, level)).toBe(lines.length > before);
        }
      }
    }
    expect(logsAt(silentLogger, "error")).toBe(false);
    const { isLevelEnabled: _, ...rest } = silentLogger;
    const noQuery: Logger = rest;
    expect(logsAt(noQuery, "trace")).toBe(true);
  });
  it("every line from a chain child carries the chain ID, also from grandchildren", () => {
    const { logger, lines } = capture("json");
    const c = logger.child({ chain: 901n }).child({ component: "derivation" });
    c.debug("step");
    expect(JSON.parse(lines[0] as string)).toMatchObject({ chain: "901", component: "derivation" });
  });

  it("redacts secret-named fields in every format", () => {
    for (const format of ["json", "logfmt", "text"] as const) {
      const { logger, lines } = capture(format);
      logger.child({ password: "hunter2" }).info(
        {
          jwtSecret: "0xdeadbeef",
          "l2.jwt-secret": "/x",
          nested: { Authorization: "Bearer abc", apiSecret: "s" },
          jwtSecretPath: "/etc/jwt.hex",
        },
        "connecting",
      );
      const out = lines.join("\n");
      expect(out).not.toContain("hunter2");
      expect(out).not.toContain("deadbeef");
      expect(out).not.toContain("Bearer abc");
      expect(out).toContain("[redacted]");
      expect(out).toContain("/etc/jwt.hex");
    }
  });

  it("parseLogLevel", () => {
    expect(parseLogLevel("CRIT")).toBe("crit");
    expect(parseLogLevel("loud")).toBeUndefined();
  });
});

describe("chainLogger", () => {
  it("binds the decimal chain ID", () => {
    const { logger, lines } = capture("logfmt");
    chainLogger(logger, 8453n).info("x");
    expect(parseLogfmt(lines[0] as string).chain).toBe("8453");
  });
});
