-- What the claim changes since `applied` (claim_history_changes(), one campaign or all) add to
-- claimant_buckets: per campaign, unit ('hour', 'day') and bucket start, the change in distinct
-- claimants and in claimants new to the campaign. Only buckets where either moved.
--
-- The distinct claimants are found, not added: for each (campaign, claimant, bucket) the changes
-- touched, the claims as the calling statement sees them say whether the claimant is there now, and
-- the changes say how many of its claims there are new (+1) or gone (-1), so whether it was there
-- as of `applied` (at most the new ones + 1 claims are counted). This holds because the calling
-- statement sees exactly the claims of `applied` and those the changes it sees report. New
-- claimants move with first claims (claim_history_firsts()).
--
-- The bucket is a range of claims_claimant_campaign_idx: the claimant, then a row comparison over
-- (campaign, time). As separate conditions on campaign and time, the planner takes the campaign's
-- index when it estimates both at a row, and every claimant's lookup reads all of a busy
-- campaign's claims of the bucket. The row comparison leaves out the claimant, which the equality
-- fixes: over all three columns, the scan would start at the claimant's first claim and read every
-- claim it made before the bucket.
CREATE OR REPLACE FUNCTION claim_history_buckets(applied pg_snapshot, campaign integer)
RETURNS SETOF claimant_buckets
LANGUAGE sql STABLE AS $$
  WITH presence AS (
         SELECT ch.campaign_key, g.unit, date_trunc(g.unit, ch.claimed_at, 'UTC') AS start, ch.claimant,
                count(*) FILTER (WHERE ch.sign > 0) AS added, count(*) FILTER (WHERE ch.sign < 0) AS removed
           FROM claim_history_changes(applied, campaign) AS ch CROSS JOIN (VALUES ('hour'), ('day')) AS g(unit)
          WHERE ch.sign <> 0
          GROUP BY 1, 2, 3, 4),
       counted AS MATERIALIZED (
         SELECT p.*, (SELECT count(*) FROM (SELECT 1 FROM claims AS c
                                              WHERE c.claimant = p.claimant
                                                AND (c.campaign_key, c.claimed_at) >= (p.campaign_key, p.start)
                                                AND (c.campaign_key, c.claimed_at) < (p.campaign_key, p.start + ('1 ' || p.unit)::interval)
                                                AND NOT c.draw
                                              LIMIT p.added + 1) AS x) AS now_count
           FROM presence AS p),
       deltas AS (
         SELECT c.campaign_key, c.unit, c.start, (c.now_count > 0)::integer - (c.now_count > c.added - c.removed)::integer AS claimants,
                0 AS new_claimants
           FROM counted AS c
         UNION ALL
         SELECT f.campaign_key, g.unit, date_trunc(g.unit, side.at, 'UTC'), 0, side.sign
           FROM claim_history_firsts(applied, campaign) AS f
          CROSS JOIN (VALUES ('hour'), ('day')) AS g(unit)
          CROSS JOIN LATERAL (VALUES (f.before, -1), (f.after, 1)) AS side(at, sign)
          WHERE side.at IS NOT NULL)
  SELECT d.campaign_key, d.unit, d.start, sum(d.claimants)::integer, sum(d.new_claimants)::integer
    FROM deltas AS d
   GROUP BY 1, 2, 3
  HAVING sum(d.claimants) <> 0 OR sum(d.new_claimants) <> 0;
$$;
