#!/usr/bin/env bash
# How long a restart takes to its first answer: `npm start` with a current build, on the embedded
# database with the demo data (the zero-configuration start), timed from the command to the first
# 200 of GET /campaigns. The first run creates the database and is not counted.
#
#   bash bench/restart.sh [RUNS]
#
# Run it on a quiet machine: start-up is mostly CPU (module loading, WebAssembly, schema compilation).
set -euo pipefail
runs=${1:-5}
port=${PORT:-3999}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$(dirname "$0")/.."
node scripts/build-if-stale.js >/dev/null 2>&1

once() {
  local start end pid
  start=$(date +%s%N)
  PGLITE_DATA_DIR="$dir/data" PORT=$port setsid npm start >"$dir/log" 2>&1 &
  pid=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$port/campaigns"; do
    kill -0 "$pid" 2>/dev/null || { cat "$dir/log"; exit 1; }
    sleep 0.02
  done
  end=$(date +%s%N)
  kill -TERM -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo $(((end - start) / 1000000))
}

once >/dev/null
times=()
for _ in $(seq "$runs"); do times+=("$(once)"); done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "restart to first answer, ms: $(echo $sorted) (median $(echo "$sorted" | sed -n "$(((runs + 1) / 2))p"))"
