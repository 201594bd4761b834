-- What GET /campaigns/{id}/history is made of, for campaign `public_id` (no row for an unknown one):
-- its incentives with what each paid in all, since `from_at` (those after `to_at` too) and in the
-- burn window [burn_from, burn_to); and its buckets of `unit` ('hour' or 'day') in [from_at, to_at)
-- where anything happened: `paid` [start, incentive, claims, amount, USD] per bucket and
-- incentive, `people` [start, claimants, new claimants] per bucket, starts in epoch milliseconds.
-- Each is JSON text; the buckets' rows are written by concatenation, cheaper than json_build_array
-- per row.
--
-- It reads the hours kept in claim_hours and claimant_buckets, never all the claims, so a campaign of
-- a million claims costs what one of a hundred does; the campaign's hours are read once, by one range
-- scan of claim_hours' key. Those tables stand at a snapshot (claim_history_applied) that the API
-- brings forward every few seconds (apply_claim_history()); the claim changes committed since are
-- added here from the claims (claim_history_hours(), claim_history_buckets()), the campaign's only,
-- so every answer holds every claim committed before it. STABLE: one snapshot for all of it, so a
-- claim written meanwhile is in all of it or none.
--
-- PL/pgSQL for its plan, which PostgreSQL keeps per server connection (see user_profile.sql).
CREATE OR REPLACE FUNCTION campaign_history(public_id text, unit text, from_at timestamptz, to_at timestamptz, burn_from timestamptz,
                                            burn_to timestamptz)
RETURNS TABLE (incentives text, paid text, people text)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_variable
DECLARE
  the_key integer;
  the_chain integer;
  applied pg_snapshot;
BEGIN
  SELECT c.key, c.chain_id INTO the_key, the_chain FROM campaigns AS c WHERE c.public_id = campaign_history.public_id;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  SELECT a.snapshot INTO applied FROM claim_history_applied AS a;
  RETURN QUERY
  WITH pending AS MATERIALIZED (
    SELECT p.hour, p.incentive_position, p.claims, p.amount, p.usd FROM claim_history_hours(applied, the_key) AS p
  ),
  hours AS MATERIALIZED (
    SELECT h.hour, h.incentive_position, h.claims, h.amount, h.usd
      FROM claim_hours AS h
     WHERE h.campaign_key = the_key AND h.hour >= least(from_at, burn_from)
       AND NOT EXISTS (SELECT 1 FROM pending AS p WHERE p.hour = h.hour)
    UNION ALL
    SELECT p.hour, p.incentive_position, p.claims, p.amount, p.usd
      FROM pending AS p
     WHERE p.incentive_position IS NOT NULL AND p.hour >= least(from_at, burn_from)
  )
  SELECT (SELECT coalesce(json_agg(json_build_array(
                   i.position, i.asset_address, t.symbol, t.decimals, i.total_budget::text, i.total_amount_claimed::text,
                   (SELECT coalesce(sum(h.amount), 0) FROM hours AS h WHERE h.incentive_position = i.position AND h.hour >= from_at)::text,
                   (SELECT coalesce(sum(h.amount), 0) FROM hours AS h
                     WHERE h.incentive_position = i.position AND h.hour >= burn_from AND h.hour < burn_to)::text)
                   ORDER BY i.position), '[]')::text
            FROM incentives AS i
            LEFT JOIN tokens AS t ON t.chain_id = the_chain AND t.address = i.asset_address
           WHERE i.campaign_key = the_key),
         (SELECT '[' || coalesce(string_agg('[' || g.at || ',' || g.position || ',' || g.claims || ',"' || g.amount || '",' || g.usd || ']', ','
                                            ORDER BY g.at, g.position), '') || ']'
            FROM (SELECT (extract(epoch FROM date_trunc(unit, h.hour, 'UTC')) * 1000)::bigint AS at, h.incentive_position AS position,
                         sum(h.claims) AS claims, sum(h.amount) AS amount, sum(h.usd)::float8 AS usd
                    FROM hours AS h WHERE h.hour >= from_at AND h.hour < to_at
                   GROUP BY 1, 2) AS g),
         (SELECT '[' || coalesce(string_agg('[' || (extract(epoch FROM b.start) * 1000)::bigint || ',' || b.claimants || ',' || b.new_claimants || ']', ','
                                            ORDER BY b.start), '') || ']'
            FROM (SELECT x.start, sum(x.claimants) AS claimants, sum(x.new_claimants) AS new_claimants
                    FROM (SELECT k.start, k.claimants, k.new_claimants
                            FROM claimant_buckets AS k
                           WHERE k.campaign_key = the_key AND k.unit = campaign_history.unit AND k.start >= from_at AND k.start < to_at
                          UNION ALL
                          SELECT d.start, d.claimants, d.new_claimants
                            FROM claim_history_buckets(applied, the_key) AS d
                           WHERE d.unit = campaign_history.unit AND d.start >= from_at AND d.start < to_at) AS x
                   GROUP BY x.start
                  HAVING sum(x.claimants) <> 0 OR sum(x.new_claimants) <> 0) AS b);
END
$$;
