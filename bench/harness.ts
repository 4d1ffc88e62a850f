/**
 * Benchmark harness. Each benchmark module default-exports a `Bench`. Figures are printed as one JSON line each
 * on standard output; anything else (progress, logs) goes to standard error.
 */
export interface Figure {
  readonly figure: string;
  readonly value: number;
  readonly unit: string;
}

export interface Bench {
  readonly name: string;
  /** Runs the benchmark and reports each figure through `report` as soon as it is measured. */
  run(report: (f: Figure) => void): Promise<void>;
}

export function printFigure(bench: string, f: Figure): void {
  process.stdout.write(`${JSON.stringify({ bench, figure: f.figure, value: f.value, unit: f.unit })}\n`);
}

/** Log to standard error (standard output is reserved for figures). */
export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}
