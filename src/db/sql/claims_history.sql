-- Claims, fifth (the order: README.md here): a TRUNCATE of the claims empties a campaign's history
-- (claim_hours, claimant_buckets, claimant_firsts) and marks every claim change before it applied.
-- Inserts, updates and deletes set off nothing here: the history is brought forward from the claim
-- changes (claims_volume_feed) outside the writing transaction, by apply_claim_history(), and a
-- read adds what it has not applied yet (campaign_history()).
CREATE OR REPLACE FUNCTION claims_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7312841562);
  DELETE FROM claim_hours;
  DELETE FROM claimant_buckets;
  DELETE FROM claimant_firsts;
  INSERT INTO claim_history_applied AS a (one, snapshot) VALUES (true, current_snapshot_with_own())
      ON CONFLICT (one) DO UPDATE SET snapshot = excluded.snapshot;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claims_5_history_after_truncate AFTER TRUNCATE ON claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_history();
