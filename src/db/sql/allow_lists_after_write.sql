-- Allow lists and their addresses appear in the documents of the campaigns that use them.
CREATE OR REPLACE FUNCTION allow_lists_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  PERFORM refresh_campaigns(ARRAY(SELECT c.key FROM campaigns AS c WHERE c.allow_list_id IN (SELECT id FROM changed_rows)));
  -- Who may claim under a list (its type, its access list) decides which campaigns a reward-kit
  -- profile offers, unlisted ones included.
  IF EXISTS (SELECT 1 FROM changed_rows) THEN
    PERFORM bump_campaign_set_version();
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER allow_lists_after_update AFTER UPDATE ON allow_lists
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION allow_lists_after_write();
