-- Campaign rows written from outside. The derived flags refresh_campaigns() itself updates need
-- no second refresh. Each write is an event of the streams (GET /events): created, changed, removed;
-- a bulk load's, one refetch event per statement that wrote rows (an upsert of rows already held,
-- equal, writes none: its statement triggers run all the same, and send nothing).
CREATE OR REPLACE FUNCTION campaigns_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    IF TG_OP = 'DELETE' THEN
      IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
    ELSIF NOT EXISTS (SELECT 1 FROM new_rows) THEN
      RETURN NULL;
    END IF;
    INSERT INTO events (type, data) VALUES ('refetch', jsonb_build_object('reason', 'campaigns were rewritten in bulk'));
    PERFORM record_event_transaction();
    RETURN NULL;
  END IF;
  IF coalesce(current_setting('campaign_service.refreshing', true), '') = 'on' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF EXISTS (SELECT 1 FROM old_rows) THEN
      PERFORM bump_campaign_set_version();
      INSERT INTO events (type, chain_id, campaign_id, data)
      SELECT 'campaign.removed', o.chain_id, o.public_id, jsonb_build_object('campaignId', o.public_id, 'chainId', o.chain_id)
        FROM old_rows AS o ORDER BY o.key;
      PERFORM record_event_transaction();
    END IF;
  ELSE
    IF EXISTS (SELECT 1 FROM new_rows) THEN
      PERFORM bump_campaign_set_version();
      PERFORM refresh_campaigns(ARRAY(SELECT key FROM new_rows));
      PERFORM record_campaign_events(CASE TG_OP WHEN 'INSERT' THEN 'campaign.created' ELSE 'campaign.changed' END, ARRAY(SELECT key FROM new_rows));
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
