# syntax=docker/dockerfile:1
# The campaign service: a build stage with every dependency, a runtime stage with production
# dependencies only, the compiled output and the SQL migrations. Same image, two commands:
#   docker run IMAGE                                  -> the API (node dist/server.js)
#   docker run IMAGE node dist/cli/migrate.js         -> apply migrations, then exit
# `npm run verify:image` replays the runtime stage's steps on a machine without a Docker engine.

# Node 24 LTS (security fixes until 2028-04-30), an exact version rather than the moving `24` tag, so
# that an image rebuilt later runs what CI tested: scripts/with-image-node.sh reads this line and runs
# CI's second test pass and `npm run verify:image` on the same release. Bump it here only.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-if-stale.js ./scripts/
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
# tini as PID 1 forwards SIGTERM to node and reaps zombies; node then drains and exits 0.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
# MALLOC_ARENA_MAX=2: glibc's malloc keeps an arena per thread that ever allocated (the claim load's
# worker, libuv's pool), and memory freed there stays resident; with two, the server holds about
# 20 MB less under load at the same throughput (bench/image-environment.ts has the figures).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional too: viem's optional peer typescript (and @types) would otherwise come along, and
# the only optional dependencies are anvil (for tests) and pg's Cloudflare socket.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
# The code stays root-owned and read-only to the service; only the embedded database's directory
# (used when no DATABASE_URL is given) is writable.
RUN mkdir -p /app/data && chown node:node /app/data
# The commit the image is built from, for the campaign_service_build_info metric ("unknown" when
# empty): docker build --build-arg BUILD_COMMIT=$(git rev-parse HEAD), or
# BUILD_COMMIT=$(git rev-parse HEAD) docker compose build. Here, after every RUN, so that another commit
# rebuilds none of the layers above.
ARG BUILD_COMMIT=unknown
ENV BUILD_COMMIT=${BUILD_COMMIT}
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/server.js"]
