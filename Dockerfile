# Work-tracking API: production image (issue 12). Needs DATABASE_URL (see docker-compose.yml).
# Node 24 (LTS); the code also runs on Node 20.19+ and 22 (package.json engines).

# 1. Build: every dependency, then the compiled dist/.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund --loglevel=warn
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# 2. Production dependencies only: no compiler, test tools or embedded PostgreSQL (--omit=optional also
#    leaves out the optional peers the dev tools pull in: ts-node, typescript).
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund --loglevel=warn && npm cache clean --force

# 3. Runtime: dist/ and production node_modules, as the unprivileged user `node`.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json ./
USER node
EXPOSE 3000
# Ready: database reachable, migrations applied, not shutting down.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself (drain, close the pool, exit 0; D32).
CMD ["node", "dist/main.js"]
