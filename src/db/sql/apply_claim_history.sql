-- Brings a campaign's history tables (claim_hours, claimant_buckets, claimant_firsts) forward to
-- now: the claim changes committed since the snapshot they stand at (claim_history_applied) are
-- applied, and the snapshot moves on. The API runs it in the background (src/services/
-- claim-history-applier.ts), so that the writing transactions pay nothing for the history and it
-- is applied in batches; reads never wait for it (campaign_history() adds what it has not applied).
--
-- One applier at a time (an advisory lock; false when another holds it: it applies the same
-- changes, or when a TRUNCATE or a bulk load holds the claims). Everything the tables get is
-- computed in one statement, so from one snapshot, the one stored; the statements after it only
-- write. More changes than one batch should hold, or a reload marker no bulk load has accounted
-- for, and the history is recomputed whole instead.
CREATE OR REPLACE FUNCTION apply_claim_history() RETURNS boolean LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  applied pg_snapshot;
  pending bigint;
  now_snapshot pg_snapshot;
  hours claim_hours[];
  buckets claimant_buckets[];
  firsts claimant_firsts[];
BEGIN
  -- The claims first, without waiting: a TRUNCATE holds them (ACCESS EXCLUSIVE) and then takes the
  -- advisory lock in its trigger, so an applier holding that lock while it waited for the claims
  -- would deadlock with it; and a bulk load holds them to its end, which a round need not wait for
  -- (the next one applies, or the load has recomputed the history).
  BEGIN
    LOCK TABLE claims IN ACCESS SHARE MODE NOWAIT;
  EXCEPTION WHEN lock_not_available THEN
    RETURN false;
  END;
  IF NOT pg_try_advisory_xact_lock(7312841562) THEN
    RETURN false;
  END IF;
  SELECT a.snapshot INTO applied FROM claim_history_applied AS a;
  SELECT count(*) INTO pending FROM (SELECT 1 FROM claim_history_changes(applied, NULL) LIMIT 100001) AS backlog;
  IF applied IS NULL
     -- In transaction order, so read from the snapshot's xmin on (claim_history_changes() says why).
     OR (SELECT x.xid FROM claim_changes AS x
          WHERE x.xid >= pg_snapshot_xmin(applied) AND NOT pg_visible_in_snapshot(x.xid, applied) AND x.campaign_key IS NULL
          ORDER BY x.xid LIMIT 1) IS NOT NULL
     OR pending > 100000 THEN
    PERFORM recompute_claim_history();
    RETURN true;
  END IF;
  -- Nothing to apply: a round writes nothing, so idle servers cost the database no write and no
  -- commit to flush, however many of them poll.
  IF pending = 0 THEN
    RETURN true;
  END IF;

  SELECT current_snapshot_with_own(),
         ARRAY(SELECT h FROM claim_history_hours(applied, NULL) AS h),
         ARRAY(SELECT b FROM claim_history_buckets(applied, NULL) AS b),
         ARRAY(SELECT ROW(f.campaign_key, f.claimant, f.after)::claimant_firsts FROM claim_history_firsts(applied, NULL) AS f)
    INTO now_snapshot, hours, buckets, firsts;

  -- In key order, as every writer of these tables.
  DELETE FROM claim_hours AS h
   USING (SELECT DISTINCT t.campaign_key, t.hour FROM unnest(hours) AS t) AS touched
   WHERE h.campaign_key = touched.campaign_key AND h.hour = touched.hour;
  INSERT INTO claim_hours
  SELECT * FROM unnest(hours) AS t WHERE t.incentive_position IS NOT NULL ORDER BY 1, 2, 3;

  INSERT INTO claimant_buckets AS b
  SELECT * FROM unnest(buckets) ORDER BY 1, 2, 3
      ON CONFLICT (campaign_key, unit, start) DO UPDATE
     SET claimants = b.claimants + excluded.claimants, new_claimants = b.new_claimants + excluded.new_claimants;
  -- A second statement: the upsert's own statement cannot delete the rows it updated.
  DELETE FROM claimant_buckets AS b
   USING unnest(buckets) AS t
   WHERE b.campaign_key = t.campaign_key AND b.unit = t.unit AND b.start = t.start AND b.claimants = 0 AND b.new_claimants = 0;

  DELETE FROM claimant_firsts AS f
   USING unnest(firsts) AS t
   WHERE f.campaign_key = t.campaign_key AND f.claimant = t.claimant;
  INSERT INTO claimant_firsts
  SELECT * FROM unnest(firsts) AS t WHERE t.first_at IS NOT NULL ORDER BY 1, 2;

  UPDATE claim_history_applied SET snapshot = now_snapshot;
  RETURN true;
END
$$;
