/** Layer rules of docs/architecture.md. */
const layer = (name) => `^src/${name}/`;
module.exports = {
  forbidden: [
    { name: "core-is-leaf", severity: "error", from: { path: layer("core") }, to: { path: "^src/(?!core/)" } },
    {
      name: "protocol-is-pure",
      severity: "error",
      comment: "protocol imports only core and pure libraries (no I/O, logging, metrics)",
      from: { path: layer("protocol") },
      to: { path: ["^src/(?!core/|protocol/)", "node_modules/(pino|prom-client|fastify|level|classic-level|libp2p|@libp2p|commander)/"] },
    },
    { name: "io-layer", severity: "error", from: { path: layer("io") }, to: { path: "^src/(?!core/|protocol/|io/)" } },
    {
      name: "p2p-layer",
      severity: "error",
      comment: "p2p may read the resolved P2P options (config/types.ts, types only) besides core, protocol and io",
      from: { path: layer("p2p") },
      to: { path: "^src/(?!core/|protocol/|io/|p2p/|config/types\\.ts$)" },
    },
    { name: "node-layer", severity: "error", from: { path: layer("node") }, to: { path: "^src/(?!core/|protocol/|node/)" } },
    {
      name: "only-p2p-and-app-use-libp2p",
      severity: "error",
      comment: "libp2p stays inside src/p2p (node and rpc see it through ports and the P2PControl view)",
      from: { path: "^src/(?!p2p/|app/)" },
      to: { path: "node_modules/(libp2p|@libp2p|@chainsafe/libp2p-[a-z]+|@chainsafe/discv5|@chainsafe/enr)/" },
    },
    {
      name: "activities-layer",
      severity: "error",
      from: { path: layer("activities") },
      to: { path: "^src/(?!core/|protocol/|activities/)" },
    },
    { name: "rpc-layer", severity: "error", from: { path: layer("rpc") }, to: { path: "^src/(?!core/|protocol/|node/|rpc/)" } },
    {
      name: "config-layer",
      severity: "error",
      from: { path: "^src/(config|observability)/" },
      to: { path: "^src/(?!core/|protocol/|config/|observability/)" },
    },
    { name: "devnet-layer", severity: "error", from: { path: layer("devnet") }, to: { path: "^src/(?!core/|protocol/|io/|devnet/)" } },
    { name: "nothing-imports-app", severity: "error", from: { path: "^src/(?!app/|cli/)" }, to: { path: layer("app") } },
    { name: "nothing-imports-cli", severity: "error", from: { path: "^src/(?!cli/)" }, to: { path: layer("cli") } },
    { name: "runtime-never-imports-devnet", severity: "error", from: { path: "^src/(?!devnet/|cli/)" }, to: { path: layer("devnet") } },
    { name: "src-never-imports-test", severity: "error", from: { path: "^src/" }, to: { path: "^(test|bench)/" } },
    {
      name: "node-does-no-io",
      severity: "error",
      comment: "node/ reaches files, sockets, databases, logs and metrics only through node/ports.ts (and its metrics port)",
      from: { path: layer("node") },
      to: {
        dependencyTypes: ["core", "npm", "npm-dev", "npm-optional", "npm-peer", "npm-no-pkg", "npm-unknown"],
        path: "^(node:)?(fs|fs/promises|net|http|https|http2|dgram|child_process|worker_threads)$|node_modules/(pino|prom-client|fastify|level|classic-level|commander|ws)/",
      },
    },
    {
      name: "pure-layers-do-no-io",
      severity: "error",
      comment: "protocol/, core/ and activities/ touch no file, socket or process",
      from: { path: "^src/(protocol|core|activities)/" },
      to: { dependencyTypes: ["core"], path: "^(node:)?(fs|fs/promises|net|http|https|http2|dgram|child_process|worker_threads)$" },
    },
    { name: "no-circular", severity: "error", from: {}, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
