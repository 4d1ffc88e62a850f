/** One flag occurrence on the command line. */
export interface ArgFlag {
  /** Name without leading dashes (`vn.10.l2`). */
  readonly name: string;
  /** Value; undefined for a bare flag (`--flag`). */
  readonly value: string | undefined;
  /** The flag as written (`--vn.10.l2`), for messages. */
  readonly token: string;
}

export interface TokenizedArgv {
  readonly flags: readonly ArgFlag[];
  readonly positionals: readonly string[];
}

/** How a flag name takes its value: a boolean never consumes the next token; others do. */
export type FlagArity = "bool" | "value" | "unknown";

/**
 * Splits argv into flags and positionals. Accepts `--name=value`, `--name value`, single-dash forms, and bare
 * booleans (`--flag`; `--flag=false` to unset). A non-boolean flag takes the next token as its value whatever
 * it looks like (so `--p2p.ban.threshold -50` works); an unknown flag takes the next token only when it does not
 * start with `-`. `--` ends the flags.
 */
export function tokenizeArgv(argv: readonly string[], arity: (name: string) => FlagArity): TokenizedArgv {
  const flags: ArgFlag[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i] as string;
    if (tok === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!tok.startsWith("-") || tok === "-") {
      positionals.push(tok);
      continue;
    }
    const body = tok.startsWith("--") ? tok.slice(2) : tok.slice(1);
    const eq = body.indexOf("=");
    if (eq >= 0) {
      const name = body.slice(0, eq);
      flags.push({ name, value: body.slice(eq + 1), token: `--${name}` });
      continue;
    }
    const name = body;
    const kind = arity(name);
    const next = argv[i + 1];
    if (kind === "bool") {
      flags.push({ name, value: undefined, token: `--${name}` });
    } else if (kind === "value") {
      if (next === undefined) flags.push({ name, value: undefined, token: `--${name}` });
      else {
        flags.push({ name, value: next, token: `--${name}` });
        i++;
      }
    } else if (next !== undefined && !next.startsWith("-")) {
      flags.push({ name, value: next, token: `--${name}` });
      i++;
    } else {
      flags.push({ name, value: undefined, token: `--${name}` });
    }
  }
  return { flags, positionals };
}
