-- Action steps are filtered on (targetContract, collection tokens) and shown in the documents.
CREATE OR REPLACE FUNCTION action_steps_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  keys integer[];
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    keys := ARRAY(SELECT DISTINCT campaign_key FROM new_rows);
  ELSIF TG_OP = 'DELETE' THEN
    keys := ARRAY(SELECT DISTINCT campaign_key FROM old_rows);
  ELSE
    keys := ARRAY(SELECT campaign_key FROM new_rows UNION SELECT campaign_key FROM old_rows);
  END IF;
  IF cardinality(keys) > 0 THEN
    PERFORM bump_campaign_set_version();
    PERFORM refresh_campaigns(keys);
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER action_steps_after_insert AFTER INSERT ON action_steps
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION action_steps_after_write();

CREATE OR REPLACE TRIGGER action_steps_after_update AFTER UPDATE ON action_steps
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION action_steps_after_write();

CREATE OR REPLACE TRIGGER action_steps_after_delete AFTER DELETE ON action_steps
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION action_steps_after_write();
