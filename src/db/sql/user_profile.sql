-- What GET /users/profile shows of user `user_id`: score, rank (1 + the users with a higher score),
-- ETH earned (wei, as text: exact at any length), the newest claim's time, and the two latest runs
-- of consecutive UTC claim days (newest first) for the streak. No row for an unknown user.
--
-- The user's claims are read once, by a range scan of claims_claimant_campaign_idx, never the whole
-- table; the rank counts higher scores on users_score_idx.
--
-- PL/pgSQL for its plan, which PostgreSQL keeps per server connection: behind PgBouncer in
-- transaction mode every statement the API sends is parsed and planned on every request, and
-- planning these five steps cost about as much as running them.
CREATE OR REPLACE FUNCTION user_profile(user_id uuid)
RETURNS TABLE (score integer, ranking integer, eth_earned text, last_claim_at text, latest_runs json)
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: one user's claims by index, whoever the user.
SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH caller AS (
    SELECT u.address, u.score FROM users AS u WHERE u.id = user_id
  ),
  caller_claims AS MATERIALIZED (
    SELECT c.claimed_at, c.eth_value_wei, c.draw FROM claims AS c WHERE c.claimant = (SELECT address FROM caller)
  ),
  claim_days AS (
    -- A raffle draw paid the user (ETH earned) but is no claim of theirs: no claim day, not the last claim.
    SELECT DISTINCT (claimed_at AT TIME ZONE 'UTC')::date AS day FROM caller_claims WHERE NOT draw
  ),
  runs AS (
    -- Consecutive days share the same day minus row number: the classic gaps-and-islands grouping.
    SELECT max(day) AS last_day, count(*)::integer AS days
      FROM (SELECT day, day - (row_number() OVER (ORDER BY day))::integer AS run FROM claim_days) AS numbered
     GROUP BY run
     ORDER BY last_day DESC
     LIMIT 2
  )
  SELECT caller.score,
         (SELECT count(*)::integer + 1 FROM users AS other WHERE other.score > caller.score),
         (SELECT coalesce(sum(eth_value_wei), 0)::text FROM caller_claims),
         (SELECT to_char(max(claimed_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') FROM caller_claims WHERE NOT draw),
         (SELECT coalesce(json_agg(json_build_object('lastDay', to_char(last_day, 'YYYY-MM-DD'), 'days', days)
                                   ORDER BY last_day DESC), '[]'::json)
            FROM runs)
    FROM caller;
END;
$$;
