-- Campaign rows written from outside. The derived flags refresh_campaigns() itself updates need
-- no second refresh.
CREATE OR REPLACE FUNCTION campaigns_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  IF coalesce(current_setting('campaign_service.refreshing', true), '') = 'on' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF EXISTS (SELECT 1 FROM old_rows) THEN PERFORM bump_campaign_set_version(); END IF;
  ELSE
    IF EXISTS (SELECT 1 FROM new_rows) THEN
      PERFORM bump_campaign_set_version();
      PERFORM refresh_campaigns(ARRAY(SELECT key FROM new_rows));
    END IF;
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER campaigns_after_insert AFTER INSERT ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_after_write();

CREATE OR REPLACE TRIGGER campaigns_after_update AFTER UPDATE ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_after_write();

CREATE OR REPLACE TRIGGER campaigns_after_delete AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_after_write();
