#!/usr/bin/env node
// Launcher of the devnet (tooling, run from its TypeScript sources through tsx). It reads the product through the
// product's public exports with the "supernode-source" condition, so an edit of the supernode's sources shows at once.
import { register } from "node:module";

register("./source-condition.mjs", import.meta.url);
const { register: registerTsx } = await import("tsx/esm/api");
registerTsx();
await import("../src/cli/main.ts");
