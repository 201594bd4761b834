-- The hours of claim_hours that the claim changes since `applied` touched (claim_history_changes(),
-- one campaign or all), counted again from the claims as the calling statement sees them: one row
-- per incentive with claims or draws in the hour, or one with a NULL incentive position for an
-- hour left without any. What replaces the hour's rows.
CREATE OR REPLACE FUNCTION claim_history_hours(applied pg_snapshot, campaign integer)
RETURNS SETOF claim_hours
LANGUAGE sql STABLE AS $$
  SELECT t.campaign_key, t.hour, c.incentive_position, c.rows, c.claims, c.amount, c.usd
    FROM (SELECT DISTINCT ch.campaign_key, date_trunc('hour', ch.claimed_at, 'UTC') AS hour
            FROM claim_history_changes(applied, campaign) AS ch) AS t
    LEFT JOIN LATERAL (
      SELECT c.incentive_position, count(*)::integer AS rows, (count(*) FILTER (WHERE NOT c.draw))::integer AS claims,
             sum(c.amount) AS amount, sum(c.usd_value) AS usd
        FROM claims AS c
       WHERE c.campaign_key = t.campaign_key AND c.claimed_at >= t.hour AND c.claimed_at < t.hour + interval '1 hour'
       GROUP BY c.incentive_position) AS c ON true;
$$;
