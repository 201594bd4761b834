-- What one claim costs the database, now and as it was when every claim rebuilt its campaign's
-- stored documents: 500 single-row INSERTs of claims of sampled incentives, timed in one session,
-- alternating the two, each under BEGIN ... ROLLBACK (the old trigger body is restored by the
-- rollback). Run against a seeded benchmark database:
--   psql postgres://postgres@127.0.0.1:5432/campaigns_bench_100000 -f bench/claim-insert-cost.sql
-- The first pair pays for cold caches and full-page writes; compare the later ones.
\set QUIET on
\pset tuples_only on
\o /dev/null
CREATE TEMP TABLE picks AS
  SELECT i.campaign_key, c.chain_id, i.position
    FROM incentives AS i TABLESAMPLE SYSTEM (2) JOIN campaigns AS c ON c.key = i.campaign_key
   LIMIT 500;
CREATE OR REPLACE FUNCTION pg_temp.measure(label text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  started timestamptz;
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
  RAISE NOTICE '%: % inserts, % ms per insert', label, n, round(extract(epoch FROM clock_timestamp() - started) * 1000 / n, 3);
END
$$;
\set now 'BEGIN; SELECT pg_temp.measure(''now: campaign_live only''); ROLLBACK;'
\set before 'BEGIN; CREATE OR REPLACE FUNCTION incentives_after_write() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN PERFORM refresh_campaigns(ARRAY(SELECT campaign_key FROM new_rows)); RETURN NULL; END $f$; SELECT pg_temp.measure(''before: documents rebuilt''); ROLLBACK;'
:now
:before
:now
:before
:now
