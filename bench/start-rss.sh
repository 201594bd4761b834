#!/usr/bin/env bash
# The server's resident memory from its start, while the claim volumes load, to SECONDS later, with
# no request: its peak and where it ends, and V8's heap then (committed and live) from /metrics.
# Started as the benchmark starts it (bench/image-environment.ts: MALLOC_ARENA_MAX=2), on a database
# the benchmark has seeded.
#
#   bash bench/start-rss.sh postgres://postgres@127.0.0.1:5432/campaigns_bench_100000 [SECONDS]
set -euo pipefail
url=${1:?usage: start-rss.sh DATABASE_URL [SECONDS]}
seconds=${2:-30}
port=${PORT:-3999}
cd "$(dirname "$0")/.."
node scripts/build-if-stale.js >/dev/null 2>&1

MALLOC_ARENA_MAX=2 DATABASE_URL=$url PORT=$port HOST=127.0.0.1 LOG_LEVEL=warn MIGRATE_ON_START=false node dist/server.js &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
rss() { awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$pid/status"; }
peak=0
for _ in $(seq 1 $((seconds * 4))); do
  sleep 0.25
  now=$(rss)
  [ "$now" -gt "$peak" ] && peak=$now
done
heap=$(curl -sf "http://127.0.0.1:$port/metrics" | awk '/^nodejs_heap_size_(total|used)_bytes|^nodejs_external_memory_bytes/ { printf "%s %d MB, ", $1, $2 / 1048576 }')
echo "peak RSS ${peak} MB in ${seconds} s; at the end $(rss) MB; ${heap%, }"
