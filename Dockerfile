# syntax=docker/dockerfile:1
# The supernode image: the product only (compiled code, configs, production dependencies), built in two stages.
# BASE_IMAGE: any Debian-based image with Node.js >= 20.19 and npm (default: the public node image). `npm run image`
# passes a base it makes itself (Debian trixie's nodejs) where no registry is reachable: bench/image/base.ts.
# BUILD_PACKAGES: what the build stage installs to compile the native addons (c-kzg; classic-level and secp256k1
# ship prebuilt ones); a base with Debian's nodejs adds libnode-dev for Node's headers.
ARG BASE_IMAGE=node:20-bookworm-slim

# Build stage: the product's dependencies (native addons compile here), the TypeScript build, dev tools removed.
# Only the product is copied: the devnet workspace (packages/devnet: anvil, simulated execution clients, batchers)
# is not, and --workspaces=false keeps npm from installing its dependencies (docs/adr/0108).
FROM ${BASE_IMAGE} AS build
ARG BUILD_PACKAGES="python3 make g++"
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends ${BUILD_PACKAGES} \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --workspaces=false --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY config ./config
COPY bin ./bin
RUN npm run build && npm prune --omit=dev --workspaces=false

# Runtime stage: the build's output only, as an unprivileged user of its own (uid/gid 10001, whatever users the
# base defines). Runs with a read-only root filesystem: /data (SUPERNODE_DATA_DIR) is the only place it writes.
FROM ${BASE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/config ./config
COPY --from=build /app/bin ./bin
COPY --from=build /app/package.json ./package.json
RUN ln -s /app/bin/supernode.js /usr/local/bin/supernode \
 && chmod +x /app/bin/supernode.js \
 && groupadd --system --gid 10001 supernode \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /data --shell /usr/sbin/nologin supernode \
 && mkdir -p /data \
 && chown 10001:10001 /data
ENV SUPERNODE_DATA_DIR=/data
USER 10001:10001
VOLUME ["/data"]
# 8545 JSON-RPC (POST /<chainID>/, POST /, GET /healthz, GET /readyz), 7300 metrics, 6060 pprof.
EXPOSE 8545 7300 6060
HEALTHCHECK --interval=30s --timeout=5s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8545/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["supernode"]
CMD ["--help"]
