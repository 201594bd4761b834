-- The claim changes committed since snapshot `since` (not visible in it, visible to the caller's
-- statement), at most `max_changes` + 1 of them, each row carrying the caller's position: its
-- snapshot, the database's clock and the campaign set's targets version (campaign_set_version.targets:
-- which campaigns target which named contracts changes only with it). With no change, one row with the
-- position and NULL change fields. Every request that reads claim volumes reads the feed first.
--
-- A SQL function of one SELECT, neither STRICT nor VOLATILE, and without SET options: PostgreSQL
-- inlines it into the calling statement, so a caller that keeps its statement's plan (the claim feed's
-- own session, a named statement on a generic plan) runs it with no function call at all, cheaper per
-- poll than a PL/pgSQL function, and a server under load polls a few thousand times a second. Callers through
-- the pool, which cannot keep a named statement, go through claim_changes_since(). STABLE: it runs on
-- its caller's snapshot, so the position and the changes are as of one snapshot, as the claim-volume
-- state needs.
CREATE OR REPLACE FUNCTION claim_changes_after(since pg_snapshot, max_changes integer)
RETURNS TABLE (snapshot text, at_ms float8, version text, campaign_key integer, public_id text,
               claimed_at_us float8, usd_micros float8, sign integer, claimant text)
LANGUAGE sql STABLE AS $$
  SELECT pg_current_snapshot()::text,
         (EXTRACT(EPOCH FROM statement_timestamp()) * 1000)::float8,
         (SELECT v.targets::text FROM campaign_set_version AS v),
         ch.campaign_key, ch.public_id, ch.claimed_at_us, ch.usd_micros, ch.sign, ch.claimant
    FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (
      SELECT x.campaign_key, x.public_id, x.sign::integer AS sign, x.claimant,
             (EXTRACT(EPOCH FROM x.claimed_at) * 1000000)::float8 AS claimed_at_us,
             (x.usd_value * 1000000)::float8 AS usd_micros
        FROM claim_changes AS x
       WHERE x.xid >= pg_snapshot_xmin(since)
         AND NOT pg_visible_in_snapshot(x.xid, since)
       -- In transaction order, which is what makes a generic plan read claim_changes_xid_idx from
       -- the snapshot's xmin on. Without an order it priced `xid >= $1` at a third of the table and
       -- read all of it, ten minutes of changes growing with the rate of claims, on every request that
       -- reads claim volumes.
       ORDER BY x.xid
       LIMIT max_changes + 1) AS ch ON true;
$$;
