-- Whether anything a reward-kit profile shows of `claimant` alone may have changed since snapshot
-- `since` (the one its kept copy was read in): a write of its claims (claim_changes) or of its other
-- rows (claimant_changes) by a transaction not visible in `since`, committed since in whatever order;
-- or changes pruned that `since` might not have seen (the oldest claim change mark, the prune's
-- horizon, is newer than `since`), when only building it again is safe. One range of
-- claim_changes_claimant_xid_idx and one of claimant_changes_claimant_xid_idx, usually empty.
--
-- PL/pgSQL for its plans, kept per server connection; STABLE, so it reads the caller's snapshot.
CREATE OR REPLACE FUNCTION claimant_changed_since(claimant text, since pg_snapshot) RETURNS boolean LANGUAGE plpgsql STABLE
  SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN EXISTS (SELECT 1 FROM claim_changes AS x
                  WHERE x.claimant = claimant_changed_since.claimant
                    AND x.xid >= pg_snapshot_xmin(since) AND NOT pg_visible_in_snapshot(x.xid, since))
      OR EXISTS (SELECT 1 FROM claimant_changes AS x
                  WHERE x.claimant = claimant_changed_since.claimant
                    AND x.xid >= pg_snapshot_xmin(since) AND NOT pg_visible_in_snapshot(x.xid, since))
      OR coalesce((SELECT pg_snapshot_xmin(m.snapshot) FROM claim_change_marks AS m ORDER BY m.taken_at LIMIT 1)
                  > pg_snapshot_xmin(since), false);
END
$$;
