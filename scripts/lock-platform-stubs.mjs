#!/usr/bin/env node
// The npm mirror this project is built against lacks some platform-specific optional packages (e.g. the macOS
// and Windows builds of @biomejs/biome and @foundry-rs/anvil). npm then leaves them out of package-lock.json, and
// `npm ci` refuses the lock as "out of sync". This script records each missing optional platform package in the
// lock with its os/cpu constraints (no tarball), so `npm ci` skips it on this platform instead of failing.
// Run after any `npm install`: `node scripts/lock-platform-stubs.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const OS = { android: "android", darwin: "darwin", linux: "linux", win32: "win32", windows: "win32", freebsd: "freebsd" };
const CPU = { arm64: "arm64", x64: "x64", amd64: "x64", ia32: "ia32", arm: "arm" };

const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
const pkgs = lock.packages;
let added = 0;
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const where = `node_modules/${dep}`;
    if (pkgs[where] || pkgs[`${path}/${where}`]) continue;
    const parts = dep.split("/").pop().split("-");
    const os = parts.map((p) => OS[p]).find(Boolean);
    const cpu = parts.map((p) => CPU[p]).find(Boolean);
    if (!os || !cpu) continue;
    const entry = { version, optional: true, os: [os], cpu: [cpu] };
    if (meta.dev) entry.dev = true;
    if (parts.includes("musl")) entry.libc = ["musl"];
    pkgs[where] = entry;
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)));
writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
console.error(`lock-platform-stubs: ${added} entries added`);
