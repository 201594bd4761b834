-- Claims, fourth (the order: README.md here): the claimant feed (claimant_changes) for the API's kept
-- reward-kit profiles (claimant_changed_since()), one row per claimant the statement touched. Only
-- inserts, so that writers of one claimant never wait on each other. A bulk load skips it (it bumps
-- campaign_set_version at its end), and a TRUNCATE, which cannot say whom it touched, bumps
-- campaign_set_version, against which every kept profile is checked as well. The other rows a profile
-- shows feed it through claimant_after_write().
CREATE OR REPLACE FUNCTION claims_claimant_feed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM bump_campaign_set_version();
  ELSIF refresh_deferred() THEN
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO claimant_changes (claimant) SELECT DISTINCT n.claimant FROM new_claims AS n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO claimant_changes (claimant) SELECT DISTINCT o.claimant FROM old_claims AS o;
  ELSE
    INSERT INTO claimant_changes (claimant) SELECT n.claimant FROM new_claims AS n UNION SELECT o.claimant FROM old_claims AS o;
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claims_4_claimant_feed_after_insert AFTER INSERT ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_claimant_feed();

CREATE OR REPLACE TRIGGER claims_4_claimant_feed_after_update AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_claims NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_claimant_feed();

CREATE OR REPLACE TRIGGER claims_4_claimant_feed_after_delete AFTER DELETE ON claims
  REFERENCING OLD TABLE AS old_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_claimant_feed();

CREATE OR REPLACE TRIGGER claims_4_claimant_feed_after_truncate AFTER TRUNCATE ON claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_claimant_feed();
