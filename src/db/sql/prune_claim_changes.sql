-- Deletes the claim changes every reader has seen, and the claimant changes with them. Called by the
-- claims trigger and claimant_after_write(), so whoever writes keeps the feeds short; it does its work
-- at most once a minute, in one writer at a time.
--
-- Once a minute it saves a snapshot (a mark). Changes whose transaction is older than a mark's
-- snapshot committed before that mark; once the mark is 10 minutes old, every reader has polled
-- since (readers poll every second, and one that has not polled for 5 minutes reloads instead of
-- reading the feed), so those changes are deleted with the older marks. The oldest mark left says
-- which claimant changes may be gone: a kept profile read before it is built again
-- (claimant_changed_since()). Claim changes the campaign history has not applied yet stay too: the
-- API applies them every few seconds, and while no API runs they wait for it.
CREATE OR REPLACE FUNCTION prune_claim_changes() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  horizon claim_change_marks;
BEGIN
  -- now() (the transaction's start), not clock_timestamp(): a stable bound is an index condition, so
  -- this check, made by every claim-writing statement, reads the newest mark through the primary key
  -- instead of scanning the table, which dead marks can make hundreds of pages (an aborted writer that
  -- took the minute's mark leaves one; a writer retrying a failing batch, one per attempt).
  IF EXISTS (SELECT 1 FROM claim_change_marks WHERE taken_at > now() - interval '1 minute')
     OR NOT pg_try_advisory_xact_lock(7312841561) THEN
    RETURN;
  END IF;
  INSERT INTO claim_change_marks (taken_at, snapshot) VALUES (clock_timestamp(), pg_current_snapshot());
  SELECT * INTO horizon FROM claim_change_marks
   WHERE taken_at <= clock_timestamp() - interval '10 minutes'
   ORDER BY taken_at DESC LIMIT 1;
  IF horizon.taken_at IS NOT NULL THEN
    -- Never a change the history has not applied yet (apply_claim_history()).
    DELETE FROM claim_changes
     WHERE xid < least(pg_snapshot_xmin(horizon.snapshot), (SELECT pg_snapshot_xmin(a.snapshot) FROM claim_history_applied AS a));
    DELETE FROM claimant_changes WHERE xid < pg_snapshot_xmin(horizon.snapshot);
    DELETE FROM claim_change_marks WHERE taken_at < horizon.taken_at;
  END IF;
END
$$;
