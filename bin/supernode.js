#!/usr/bin/env node
// Thin launcher: runs the compiled CLI (dist/, built by `npm ci` / `npm run build`) unless the sources are newer,
// otherwise the TypeScript sources through tsx.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(root, "dist", "cli", "main.js");
const src = join(root, "src");

/** Newest modification time of a file under `dir` (0 when it does not exist). */
function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) newest = Math.max(newest, statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  return newest;
}

const stale = existsSync(built) && newestMtime(src) > statSync(built).mtimeMs;
if (existsSync(built) && !stale) {
  await import(pathToFileURL(built).href);
} else {
  if (stale) process.stderr.write("supernode: src/ is newer than dist/, running the sources (npm run build)\n");
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(join(src, "cli", "main.ts")).href);
}
