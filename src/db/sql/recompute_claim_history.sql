-- Every campaign's history rows (claim_hours, claimant_buckets, claimant_firsts) from the claims
-- table, computed whole, and the snapshot they stand at (claim_history_applied): what
-- apply_claim_history() keeps. A bulk load calls it at its end, the migration that added the tables,
-- and the applier when it finds too much to apply. DELETE rather than TRUNCATE: readers of a history
-- keep reading meanwhile.
--
-- The applier's lock first, so that no applier writes meanwhile; then the rows and the snapshot in
-- one statement, so from one snapshot (the deletes before it only clear the tables).
CREATE OR REPLACE FUNCTION recompute_claim_history() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7312841562);
  DELETE FROM claim_hours;
  DELETE FROM claimant_buckets;
  DELETE FROM claimant_firsts;
  WITH hours AS (
         INSERT INTO claim_hours (campaign_key, hour, incentive_position, rows, claims, amount, usd)
         SELECT campaign_key, date_trunc('hour', claimed_at, 'UTC'), incentive_position, count(*), count(*) FILTER (WHERE NOT draw),
                sum(amount), sum(usd_value)
           FROM claims
          GROUP BY 1, 2, 3),
       firsts AS (
         INSERT INTO claimant_firsts (campaign_key, claimant, first_at)
         SELECT campaign_key, claimant, min(claimed_at) FROM claims WHERE NOT draw GROUP BY 1, 2
         RETURNING campaign_key, first_at),
       buckets AS (
         INSERT INTO claimant_buckets (campaign_key, unit, start, claimants, new_claimants)
         SELECT campaign_key, unit, start, sum(claimants), sum(new_claimants)
           FROM (SELECT c.campaign_key, g.unit, date_trunc(g.unit, c.claimed_at, 'UTC') AS start, count(DISTINCT c.claimant) AS claimants,
                        0 AS new_claimants
                   FROM claims AS c CROSS JOIN (VALUES ('hour'), ('day')) AS g(unit)
                  WHERE NOT c.draw
                  GROUP BY 1, 2, 3
                 UNION ALL
                 SELECT f.campaign_key, g.unit, date_trunc(g.unit, f.first_at, 'UTC'), 0, count(*)
                   FROM firsts AS f CROSS JOIN (VALUES ('hour'), ('day')) AS g(unit)
                  GROUP BY 1, 2, 3) AS b
          GROUP BY 1, 2, 3)
  INSERT INTO claim_history_applied AS a (one, snapshot) VALUES (true, current_snapshot_with_own())
      ON CONFLICT (one) DO UPDATE SET snapshot = excluded.snapshot;
END
$$;
