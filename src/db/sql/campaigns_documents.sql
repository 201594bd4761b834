-- Campaigns written from outside, first of their triggers (the order: README.md here): the derived
-- state of each campaign written (refresh_campaigns()) and the campaign set's version, which kept
-- profiles and the targets of named contracts are checked against. The derived flags that
-- refresh_campaigns() itself updates (campaign_service.refreshing) need no second refresh; a bulk load
-- refreshes everything at its end. Emptying campaigns (TRUNCATE, as the demo refresh does) changes
-- every filtered total: it bumps the version too.
CREATE OR REPLACE FUNCTION campaigns_documents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM bump_campaign_set_version();
    RETURN NULL;
  END IF;
  IF refresh_deferred() OR coalesce(current_setting('campaign_service.refreshing', true), '') = 'on' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF EXISTS (SELECT 1 FROM old_rows) THEN
      PERFORM bump_campaign_set_version();
    END IF;
  ELSIF EXISTS (SELECT 1 FROM new_rows) THEN
    PERFORM bump_campaign_set_version();
    PERFORM refresh_campaigns(ARRAY(SELECT key FROM new_rows));
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER campaigns_1_documents_after_insert AFTER INSERT ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_documents();

CREATE OR REPLACE TRIGGER campaigns_1_documents_after_update AFTER UPDATE ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_documents();

CREATE OR REPLACE TRIGGER campaigns_1_documents_after_delete AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_documents();

CREATE OR REPLACE TRIGGER campaigns_1_documents_after_truncate AFTER TRUNCATE ON campaigns
  FOR EACH STATEMENT EXECUTE FUNCTION campaigns_documents();
