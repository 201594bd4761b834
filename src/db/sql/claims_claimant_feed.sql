-- Claims, fourth (the order: README.md here): what the kept reward-kit profiles (claimant_changed_since())
-- learn from a TRUNCATE, which cannot say whom it touched: it bumps campaign_set_version, against which
-- every kept profile is checked as well. A claim's insert, update or delete needs nothing here: its
-- claim_changes row (claims_volume_feed, third) names its claimant, and claimant_changed_since() reads
-- it there. The other rows a profile shows feed claimant_changes through claimant_after_write().

CREATE OR REPLACE FUNCTION claims_claimant_feed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_campaign_set_version();
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claims_4_claimant_feed_after_truncate AFTER TRUNCATE ON claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_claimant_feed();
