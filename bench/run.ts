// First: the product entry installs the Promise.withResolvers polyfill libp2p needs on Node 20.
import "supernode";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Bench, note, printFigure } from "./harness.js";

// Usage: npm run bench            → every benchmark in bench/*.bench.ts
//        npm run bench -- <name>  → one (or several) by name
const here = dirname(fileURLToPath(import.meta.url));
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .sort();
const wanted = process.argv.slice(2).filter((a) => a !== "--");
const benches: Bench[] = [];
for (const f of files) {
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { default: Bench };
  benches.push(mod.default);
}
const unknown = wanted.filter((w) => !benches.some((b) => b.name === w));
if (unknown.length > 0) {
  note(`unknown benchmark(s): ${unknown.join(", ")}; known: ${benches.map((b) => b.name).join(", ")}`);
  process.exit(2);
}
for (const b of benches) {
  if (wanted.length > 0 && !wanted.includes(b.name)) continue;
  note(`# bench ${b.name}`);
  await b.run((fig) => printFigure(b.name, fig));
}
process.exit(0);
