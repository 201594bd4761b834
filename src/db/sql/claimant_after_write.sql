-- The rows a reward-kit profile shows of its claimant alone: claims and claim signatures (by
-- `claimant`), allow-list addresses and access-list members (by `address`). A write records each
-- address it touched in claimant_changes, with the writing transaction, for the API's kept profiles
-- (claimant_changed_since()). Only inserts: writers of one claimant never wait on each other, and
-- nothing depends on the order they commit in. A bulk load skips it (refresh deferred) and a
-- TRUNCATE cannot say whom it touched: both bump campaign_set_version, against which every kept
-- profile is checked as well (the bulk loaders do at their end). Claims record theirs in
-- claims_claimant_feed(), one of the claims triggers.
CREATE OR REPLACE FUNCTION claimant_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched text[] := '{}';
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM bump_campaign_set_version();
    RETURN NULL;
  END IF;
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  IF TG_TABLE_NAME = 'claim_signatures' THEN
    IF TG_OP <> 'DELETE' THEN touched := touched || ARRAY(SELECT n.claimant FROM new_rows AS n); END IF;
    IF TG_OP <> 'INSERT' THEN touched := touched || ARRAY(SELECT o.claimant FROM old_rows AS o); END IF;
  ELSE
    IF TG_OP <> 'DELETE' THEN touched := touched || ARRAY(SELECT n.address FROM new_rows AS n); END IF;
    IF TG_OP <> 'INSERT' THEN touched := touched || ARRAY(SELECT o.address FROM old_rows AS o); END IF;
  END IF;
  IF cardinality(touched) > 0 THEN
    INSERT INTO claimant_changes (claimant) SELECT DISTINCT t.claimant FROM unnest(touched) AS t(claimant);
    PERFORM prune_claim_changes();
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claim_signatures_claimant_after_insert AFTER INSERT ON claim_signatures
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER claim_signatures_claimant_after_update AFTER UPDATE ON claim_signatures
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER claim_signatures_claimant_after_delete AFTER DELETE ON claim_signatures
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER claim_signatures_claimant_after_truncate AFTER TRUNCATE ON claim_signatures
  FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER allow_list_addresses_claimant_after_insert AFTER INSERT ON allow_list_addresses
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER allow_list_addresses_claimant_after_update AFTER UPDATE ON allow_list_addresses
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER allow_list_addresses_claimant_after_delete AFTER DELETE ON allow_list_addresses
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER allow_list_addresses_claimant_after_truncate AFTER TRUNCATE ON allow_list_addresses
  FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER access_list_members_claimant_after_insert AFTER INSERT ON access_list_members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER access_list_members_claimant_after_update AFTER UPDATE ON access_list_members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER access_list_members_claimant_after_delete AFTER DELETE ON access_list_members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();

CREATE OR REPLACE TRIGGER access_list_members_claimant_after_truncate AFTER TRUNCATE ON access_list_members
  FOR EACH STATEMENT EXECUTE FUNCTION claimant_after_write();
