-- Every campaign's history rows (claim_hours, claimant_buckets) from the claims table: what the
-- claims_history trigger keeps, computed whole. A bulk load calls it at its end, and the migration
-- that added the tables. DELETE rather than TRUNCATE: readers of a history keep reading meanwhile.
CREATE OR REPLACE FUNCTION recompute_claim_history() RETURNS void LANGUAGE sql AS $$
  DELETE FROM claim_hours;
  INSERT INTO claim_hours (campaign_key, hour, incentive_position, rows, claims, amount, usd)
  SELECT campaign_key, date_trunc('hour', claimed_at, 'UTC'), incentive_position, count(*), count(*) FILTER (WHERE NOT draw),
         sum(amount), sum(usd_value)
    FROM claims
   GROUP BY 1, 2, 3;
  DELETE FROM claimant_buckets;
  INSERT INTO claimant_buckets (campaign_key, unit, start, claimants, new_claimants)
  SELECT campaign_key, unit, start, sum(claimants), sum(new_claimants)
    FROM (SELECT c.campaign_key, g.unit, date_trunc(g.unit, c.claimed_at, 'UTC') AS start, count(DISTINCT c.claimant) AS claimants, 0 AS new_claimants
            FROM claims AS c CROSS JOIN (VALUES ('hour'), ('day')) AS g(unit)
           WHERE NOT c.draw
           GROUP BY 1, 2, 3
          UNION ALL
          SELECT f.campaign_key, g.unit, date_trunc(g.unit, f.first_at, 'UTC'), 0, count(*)
            FROM (SELECT campaign_key, claimant, min(claimed_at) AS first_at FROM claims WHERE NOT draw GROUP BY 1, 2) AS f
           CROSS JOIN (VALUES ('hour'), ('day')) AS g(unit)
           GROUP BY 1, 2, 3) AS b
   GROUP BY 1, 2, 3;
$$;
