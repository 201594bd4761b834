-- The claim changes (claim_changes) committed since snapshot `applied` that the calling statement
-- sees, of campaign `campaign` (NULL: of every campaign): what the history tables (claim_hours,
-- claimant_buckets, claimant_firsts) do not hold yet. Reload markers are left out: a bulk load
-- recomputes the history itself (recompute_claim_history()).
--
-- A SQL function of one SELECT, STABLE and without SET options: inlined into its callers, on their
-- snapshot. In transaction order, which makes a generic plan read claim_changes_xid_idx from the
-- snapshot's xmin on rather than the whole table (claim_changes_after() says why).
CREATE OR REPLACE FUNCTION claim_history_changes(applied pg_snapshot, campaign integer)
RETURNS TABLE (campaign_key integer, claimed_at timestamptz, claimant text, sign smallint)
LANGUAGE sql STABLE AS $$
  SELECT x.campaign_key, x.claimed_at, x.claimant, x.sign
    FROM claim_changes AS x
   WHERE x.xid >= pg_snapshot_xmin(applied)
     AND NOT pg_visible_in_snapshot(x.xid, applied)
     AND x.campaign_key IS NOT NULL
     AND (campaign IS NULL OR x.campaign_key = campaign)
   ORDER BY x.xid;
$$;
