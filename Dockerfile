# The production image wraps exactly the folder that `scripts/deploy-check.sh` tests in CI:
# `pnpm deploy --legacy --prod` of the server (its JavaScript in dist/ and production
# dependencies only), run with plain `node`. Build with `docker build -t transport-ops-api .`.

FROM node:24-bookworm-slim AS build
WORKDIR /src
RUN npm install -g pnpm@10
# Dependencies first, from the lockfile alone (`pnpm fetch` reads nothing else): this layer is
# rebuilt only when pnpm-lock.yaml changes, not at every source change.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
RUN pnpm install --offline --frozen-lockfile \
 && node scripts/build.mjs \
 && pnpm --filter @transport-ops/server deploy --legacy --prod /app

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 3000
# Liveness only: readiness (/ready) is for the load balancer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD node -e "fetch('http://127.0.0.1:3000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# `node` directly: SIGTERM reaches the server, which drains and closes its connections.
CMD ["node", "dist/server.js"]
