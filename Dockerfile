# syntax=docker/dockerfile:1
# Build stage: install the product's dependencies (native addons compile here) and compile TypeScript. Only the
# product is copied: the devnet workspace (packages/devnet: anvil, simulated execution clients, batchers) is not,
# and --workspaces=false keeps npm from installing its dependencies (docs/adr/0108).
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --workspaces=false --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY config ./config
COPY bin ./bin
RUN npm run build && npm prune --omit=dev --workspaces=false

# Runtime stage: compiled code and production dependencies only, as a non-root user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/config ./config
COPY --from=build /app/bin ./bin
COPY --from=build /app/package.json ./package.json
# `supernode` on the PATH; state under /data (SUPERNODE_DATA_DIR) owned by the unprivileged `node` user.
RUN ln -s /app/bin/supernode.js /usr/local/bin/supernode \
 && chmod +x /app/bin/supernode.js \
 && mkdir -p /data && chown node:node /data
ENV SUPERNODE_DATA_DIR=/data
USER node
VOLUME ["/data"]
# 8545 JSON-RPC (POST /<chainID>/, POST /, GET /healthz, GET /readyz), 7300 metrics, 6060 pprof.
EXPOSE 8545 7300 6060
HEALTHCHECK --interval=30s --timeout=5s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8545/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["supernode"]
CMD ["--help"]
