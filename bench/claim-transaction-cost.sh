#!/usr/bin/env bash
# What one claim costs PostgreSQL as an indexer sends it: single-claim transactions (INSERT and
# commit, the statement prepared once per connection) at a steady rate, and the CPU of the backend
# that ran them, from /proc (it does not grow when other work shares the machine; elapsed time does).
# Unlike bench/claim-insert-cost.sql, which inserts its claims inside one transaction, this counts
# each transaction's commit and the triggers' per-statement set-up.
#
#   bash bench/claim-transaction-cost.sh postgres://postgres@127.0.0.1:5432/campaigns_bench_100000 [RATE] [SECONDS] [--baseline]
#
# With --baseline it first measures the same claims with the service's triggers on claims disabled
# (the bare INSERT, its indexes, foreign key and commit: what any claim costs on this machine), then
# with them, and reports what the service's consumers add: a figure that moves less from machine to
# machine than the total. The triggers are enabled again on exit, however it ends. Each run starts
# with a CHECKPOINT (when the role may take one).
#
# Needs pgbench (Debian's postgresql package) and the database on this machine (the backend's /proc).
# The claims it writes stay: run it on a benchmark database, never on one that matters.
set -euo pipefail
url=${1:?usage: claim-transaction-cost.sh DATABASE_URL [RATE] [SECONDS] [--baseline]}
rate=${2:-200}
seconds=${3:-15}
baseline=${4:-}

script=$(mktemp)
out=$(mktemp)
trap 'rm -f "$script" "$out"' EXIT
max_key=$(psql "$url" -Atc 'SELECT max(key) FROM campaigns')
# A claim of the first incentive of a random campaign, made now, with a transaction hash of its own.
# (The chain by a subquery: joined, the generic plan merge-joins from the first campaign on.)
cat >"$script" <<SQL
\set k random(1, $max_key)
INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
SELECT i.campaign_key, (SELECT c.chain_id FROM campaigns AS c WHERE c.key = i.campaign_key), i.position,
       '0x00000000000000000000000000000000000000aa', 1, 1.5, 0,
       '0x' || md5(random()::text) || md5(clock_timestamp()::text), 0, now()
  FROM incentives AS i
 WHERE i.campaign_key >= :k ORDER BY i.campaign_key, i.position LIMIT 1;
SQL

# Prints the backend's and the whole server's CPU per claim, in ms, and pgbench's summary lines.
measure() {
  # Each run starts right after a checkpoint, so that each pays the same full-page writes.
  psql "$url" -qc CHECKPOINT 2>/dev/null || true
  PGAPPNAME=claim-transaction-cost pgbench -n -M prepared -c 1 -R "$rate" -T $((seconds + 4)) -f "$script" "$url" >"$out" 2>&1 &
  local bench=$!
  sleep 2
  local pid
  pid=$(psql "$url" -Atc "SELECT pid FROM pg_stat_activity WHERE application_name = 'claim-transaction-cost' LIMIT 1")
  [ -n "$pid" ] || { wait "$bench" || true; cat "$out"; exit 1; }
  ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; } # utime + stime, in 1/100 s
  # Every PostgreSQL process of the server (the WAL writer, the background writer, other sessions too):
  # what the claims cost the machine, not only their backend. Counts other work on the server as well.
  server_ticks() { for p in $(pgrep -x postgres); do awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null; done | awk '{ t += $1 } END { print t + 0 }'; }
  claims() { psql "$url" -Atc 'SELECT count(*) FROM claims'; }
  local t0 s0 c0 t1 s1 c1
  t0=$(ticks) s0=$(server_ticks) c0=$(claims)
  sleep "$seconds"
  t1=$(ticks) s1=$(server_ticks) c1=$(claims)
  wait "$bench"
  count=$((c1 - c0))
  backend_ms=$(awk -v ticks=$((t1 - t0)) -v claims=$count 'BEGIN { printf "%.3f", ticks * 10 / claims }')
  server_ms=$(awk -v ticks=$((s1 - s0)) -v claims=$count 'BEGIN { printf "%.3f", ticks * 10 / claims }')
}

if [ "$baseline" = "--baseline" ]; then
  trap 'psql "$url" -qc "ALTER TABLE claims ENABLE TRIGGER USER" >/dev/null; rm -f "$script" "$out"' EXIT
  psql "$url" -qc 'ALTER TABLE claims DISABLE TRIGGER USER'
  measure
  bare_ms=$backend_ms
  echo "bare INSERT (the service's triggers disabled): $count claims in ${seconds} s at ${rate}/s: ${backend_ms} ms of backend CPU a claim, ${server_ms} ms of the whole server's"
  psql "$url" -qc 'ALTER TABLE claims ENABLE TRIGGER USER'
fi
measure
echo "$count claims in ${seconds} s at ${rate}/s: ${backend_ms} ms of backend CPU a claim, ${server_ms} ms of the whole server's"
grep -E 'latency average|failed transactions' "$out"
if [ "$baseline" = "--baseline" ]; then
  awk -v all="$backend_ms" -v bare="$bare_ms" 'BEGIN { printf "the consumers add %.3f ms a claim (%.2fx the bare INSERT)\n", all - bare, all / bare }'
fi
