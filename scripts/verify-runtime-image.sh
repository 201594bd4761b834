#!/usr/bin/env bash
# Replays the Dockerfile's runtime stage on a machine without a Docker engine, so that a broken
# image shows up here rather than in production:
#   - on the image's Node (the Dockerfile's NODE_IMAGE version, through scripts/with-image-node.sh),
#     not the machine's;
#   - a clean copy with production dependencies only (npm ci --omit=dev --omit=optional), dist/ and migrations/;
#   - the migrate command, the indexer's and the price job's --check, then the seed command, from
#     the built output, against a scratch PostgreSQL database on 127.0.0.1:5432 (created here,
#     dropped on exit); then export, import of the export into a second empty database, and a
#     byte-identical export of that copy;
#   - the image's CMD with MIGRATE_ON_START=false, probed with the Dockerfile's own HEALTHCHECK
#     until ready, one API call, then SIGTERM: the process must exit 0.
# A production module importing a devDependency fails here with ERR_MODULE_NOT_FOUND.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# Re-run under the image's Node unless already there; every node and npm below is that one.
if [ "$(node --version)" != "v${IMAGE_NODE_VERSION:-none}" ]; then exec bash scripts/with-image-node.sh bash "$0" "$@"; fi
echo "::: on the image's Node: $(command -v node) $(node --version)"

PG_ADMIN_URL=${VERIFY_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}
SCRATCH_DB="campaign_image_$$"
DATABASE_URL="${PG_ADMIN_URL%/*}/$SCRATCH_DB"
SCRATCH_DB_COPY="campaign_image_copy_$$"
COPY_URL="${PG_ADMIN_URL%/*}/$SCRATCH_DB_COPY"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/campaign-image.XXXXXX")
SERVER_PID=""

cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then kill -KILL "$SERVER_PID" || true; fi
  psql "$PG_ADMIN_URL" -qc "DROP DATABASE IF EXISTS \"$SCRATCH_DB\" WITH (FORCE)" >/dev/null 2>&1 || true
  psql "$PG_ADMIN_URL" -qc "DROP DATABASE IF EXISTS \"$SCRATCH_DB_COPY\" WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "verify-runtime-image: FAILED: $*" >&2
  if [ -f "$WORK/server.log" ]; then echo "--- server log ---" >&2; tail -n 40 "$WORK/server.log" >&2; fi
  exit 1
}

echo "::: build stage: npm run build"
npm run build --silent

echo "::: runtime stage in $WORK: npm ci --omit=dev --omit=optional, dist/, migrations/"
cp package.json package-lock.json "$WORK/"
(cd "$WORK" && npm ci --omit=dev --omit=optional --no-audit --no-fund --loglevel=error)
cp -R dist migrations "$WORK/"
for dev_only in typescript vitest tsx drizzle-kit; do
  [ ! -e "$WORK/node_modules/$dev_only" ] || fail "devDependency $dev_only was installed with --omit=dev"
done

# The runtime stage's environment, and nothing of this machine's (no TEST_DATABASE_URL etc.).
run_in_image() {
  (cd "$WORK" && env -i PATH="$PATH" HOME="$WORK" NODE_ENV=production HOST=127.0.0.1 MALLOC_ARENA_MAX=2 "$@")
}

psql "$PG_ADMIN_URL" -qc "CREATE DATABASE \"$SCRATCH_DB\""

echo "::: migrate: node dist/cli/migrate.js"
run_in_image DATABASE_URL="$DATABASE_URL" node dist/cli/migrate.js || fail "the migrate command"

# The compose file's checks: each loads every module its worker runs (static imports), opens nothing.
echo "::: checks: node dist/cli/index.js --check, node dist/cli/prices.js --check"
run_in_image DATABASE_URL="$DATABASE_URL" CHAIN_RPC_URLS=8453=https://base.example/rpc node dist/cli/index.js --check || fail "the indexer's check"
run_in_image DATABASE_URL="$DATABASE_URL" node dist/cli/prices.js --check || fail "the price job's check"

echo "::: seed: node dist/cli/seed.js --campaigns 30 --claims 300"
run_in_image DATABASE_URL="$DATABASE_URL" node dist/cli/seed.js --campaigns 30 --claims 300 || fail "the seed command"

echo "::: export, then import into an empty database: node dist/cli/export.js, node dist/cli/import.js"
run_in_image DATABASE_URL="$DATABASE_URL" node dist/cli/export.js --out "$WORK/export.ndjson" || fail "the export command"
psql "$PG_ADMIN_URL" -qc "CREATE DATABASE \"$SCRATCH_DB_COPY\""
run_in_image DATABASE_URL="$COPY_URL" node dist/cli/import.js "$WORK/export.ndjson" >/dev/null || fail "the import command"
run_in_image DATABASE_URL="$COPY_URL" node dist/cli/export.js >"$WORK/copy.ndjson" || fail "the export of the copy"
cmp -s "$WORK/export.ndjson" "$WORK/copy.ndjson" || fail "the imported copy exports differently from its source"

PORT=$(node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
echo "::: start: node dist/server.js on port $PORT (MIGRATE_ON_START=false)"
cd "$WORK"
env -i PATH="$PATH" HOME="$WORK" NODE_ENV=production HOST=127.0.0.1 MALLOC_ARENA_MAX=2 PORT="$PORT" \
  DATABASE_URL="$DATABASE_URL" MIGRATE_ON_START=false SHUTDOWN_GRACE_MS=5000 \
  node dist/server.js >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
cd "$ROOT"

# The HEALTHCHECK command, read from the Dockerfile so that the one that ships is the one tested.
mapfile -t HEALTHCHECK < <(node -e '
  const line = require("node:fs").readFileSync("Dockerfile", "utf8").replace(/\\\n\s*/g, "").split("\n").find((l) => l.startsWith("HEALTHCHECK"));
  for (const arg of JSON.parse(line.slice(line.indexOf("CMD ") + 4))) console.log(arg);
')
[ "${HEALTHCHECK[0]:-}" = "node" ] || fail "no exec-form node HEALTHCHECK in the Dockerfile"

echo "::: probe: the Dockerfile's HEALTHCHECK until /health/ready answers 200"
ready=""
for _ in $(seq 1 60); do
  kill -0 "$SERVER_PID" 2>/dev/null || fail "the server exited during start-up"
  if run_in_image PORT="$PORT" "${HEALTHCHECK[@]}"; then ready=yes; break; fi
  sleep 0.5
done
[ -n "$ready" ] || fail "/health/ready did not answer 200 within 30 s"

total=$(node -e "fetch('http://127.0.0.1:$PORT/campaigns?tokenWhitelist=false&pageSize=0').then((r) => r.json()).then((b) => console.log(b.totalCampaigns))")
[ "$total" = "30" ] || fail "GET /campaigns counted $total campaigns, expected the 30 seeded"

echo "::: SIGTERM: expect a graceful exit 0"
kill -TERM "$SERVER_PID"
status=0
wait "$SERVER_PID" || status=$?
SERVER_PID=""
[ "$status" -eq 0 ] || fail "the server exited with $status after SIGTERM"
grep -q '"msg":"stopped"' "$WORK/server.log" || fail "no 'stopped' line in the server log"

echo "verify-runtime-image: OK (production install, migrate, checks, seed, export, import, start, ready, SIGTERM -> exit 0)"
