# One image for every process of the service:
#   portal (default)          node dist/server.js
#   authorization server      node dist/auth-server/server.js      (HEALTHCHECK_PORT=3001)
#   migrations                node dist/database/cli.js migrate
# Production dependencies only, a non-root user, and nothing written outside DATA_DIR, so the root
# filesystem can be read-only. Node is PID 1: the service handles SIGTERM itself (readiness false
# and SHUTDOWN_DELAY_SECONDS of draining, then requests in flight finish, the authorization server
# child and the job workers stop) and reaps its child: give it 20 s (`docker stop -t 20`).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && mkdir -p /empty/data

FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
# Settings first and the large copies last: each instruction is a layer.
ENV HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/var/lib/erp-portal
EXPOSE 3000 3001
# Probes the port the process listens on: PORT (a container started with another PORT stays
# healthy), or HEALTHCHECK_PORT when set (the authorization server: its AUTH_PORT).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.HEALTHCHECK_PORT || process.env.PORT || 3000}/health/live`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
USER 10001:10001
WORKDIR /app
CMD ["node", "dist/server.js"]
COPY --from=build --chown=10001:10001 /empty/data /var/lib/erp-portal
COPY --from=production-dependencies /app ./
COPY --from=build /build/dist ./dist
