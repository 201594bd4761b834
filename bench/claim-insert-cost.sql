-- What one claim costs the database, now and as it was when every claim rebuilt its campaign's
-- stored documents: 2,000 single-row INSERTs of claims of sampled incentives, timed in one session,
-- alternating the two, each under BEGIN ... ROLLBACK (the old trigger body is restored by the
-- rollback). Run against a seeded benchmark database:
--   psql postgres://postgres@127.0.0.1:5432/campaigns_bench_100000 -f bench/claim-insert-cost.sql
-- The first pair pays for cold caches and full-page writes; compare the later ones.
\set QUIET on
\pset tuples_only on
\o /dev/null
CREATE TEMP TABLE picks AS
  SELECT i.campaign_key, c.chain_id, i.position
    FROM incentives AS i TABLESAMPLE SYSTEM (5) JOIN campaigns AS c ON c.key = i.campaign_key
   LIMIT 2000;
-- CPU time of this backend from /proc (needs a superuser, as pg_read_file does): unlike the elapsed
-- time it does not grow when other work shares the machine.
CREATE OR REPLACE FUNCTION pg_temp.cpu_ticks() RETURNS bigint LANGUAGE sql AS $c$
  SELECT f[12]::bigint + f[13]::bigint
    FROM (SELECT string_to_array(split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ') ', 2), ' ') AS f) AS stat
$c$;
CREATE OR REPLACE FUNCTION pg_temp.measure(label text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  started timestamptz;
  ticks bigint := pg_temp.cpu_ticks();
  n integer := 0;
  p record;
BEGIN
  started := clock_timestamp();
  FOR p IN SELECT * FROM picks LOOP
    INSERT INTO claims (campaign_key, chain_id, incentive_position, claimant, amount, usd_value, eth_value_wei, tx_hash, log_index, claimed_at)
    VALUES (p.campaign_key, p.chain_id, p.position, '0x00000000000000000000000000000000000000aa', 1, 1.5, 0,
            '0x' || lpad(to_hex(n), 64, 'f'), n, now());
    n := n + 1;
  END LOOP;
  RAISE NOTICE '%: % inserts, % ms per insert, % ms CPU', label, n, round(extract(epoch FROM clock_timestamp() - started) * 1000 / n, 3),
    round((pg_temp.cpu_ticks() - ticks) * 1000.0 / 100 / n, 3); -- /proc counts 1/100 s ticks
END
$$;
\set now 'BEGIN; SELECT pg_temp.measure(''now: campaign_live only''); ROLLBACK;'
\set before 'BEGIN; CREATE OR REPLACE FUNCTION incentives_documents() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN PERFORM refresh_campaigns(ARRAY(SELECT campaign_key FROM new_rows)); RETURN NULL; END $f$; SELECT pg_temp.measure(''before: documents rebuilt''); ROLLBACK;'
:now
:before
:now
:before
:now
