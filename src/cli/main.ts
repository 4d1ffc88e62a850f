#!/usr/bin/env node
// First: libp2p needs Promise.withResolvers (Node 22+); the polyfill must run before libp2p loads.
import "../core/polyfill.js";
import "./young-generation-first.js";
import { endWithParent, terminateSelf } from "./parent-watch.js";
import { runCli } from "./program.js";

// Spawned by a devnet, a bench or the chaos suite (with an IPC channel): end when that parent ends.
endWithParent(() => terminateSelf());

/** Entry point of the `supernode` binary (`bin/supernode.js` imports this module). */
const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
if (code !== 0 || process.exitCode === undefined) process.exitCode = code;
