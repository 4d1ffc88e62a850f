// `npm ci` / `npm install` lifecycle (`prepare`): compile src/ to dist/ so that `npx supernode …` starts from the
// compiled build. Skipped, with a note, where there is nothing to compile or nothing to compile with: the
// Dockerfile's build stage runs `npm ci` before it copies the sources (it runs `npm run build` itself afterwards),
// and a production-only install has no TypeScript.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const skip = (why) => {
  console.log(`supernode: not compiling (${why}); bin/supernode.js runs the sources through tsx until \`npm run build\``);
  process.exit(0);
};
if (!existsSync(join(root, "src", "cli", "main.ts")) || !existsSync(join(root, "tsconfig.build.json"))) {
  skip("no sources here yet");
}
let tsc;
try {
  tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
} catch {
  skip("TypeScript is not installed");
}
const r = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit", cwd: root });
process.exit(r.status ?? 1);
