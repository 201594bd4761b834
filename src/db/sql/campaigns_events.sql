-- Campaigns written from outside, last (the order: README.md here): each write is an event of the
-- streams (GET /events), created, changed or removed, with the state campaigns_documents() left. A
-- bulk load's statement sends one refetch event instead, when it wrote rows (an upsert of rows
-- already held, equal, writes none: its statement triggers run all the same, and send nothing).
CREATE OR REPLACE FUNCTION campaigns_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(current_setting('campaign_service.refreshing', true), '') = 'on' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
  ELSIF NOT EXISTS (SELECT 1 FROM new_rows) THEN
    RETURN NULL;
  END IF;
  IF refresh_deferred() THEN
    INSERT INTO events (type, data) VALUES ('refetch', jsonb_build_object('reason', 'campaigns were rewritten in bulk'));
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO events (type, chain_id, campaign_id, data)
    SELECT 'campaign.removed', o.chain_id, o.public_id, jsonb_build_object('campaignId', o.public_id, 'chainId', o.chain_id)
      FROM old_rows AS o ORDER BY o.key;
  ELSE
    PERFORM record_campaign_events(CASE TG_OP WHEN 'INSERT' THEN 'campaign.created' ELSE 'campaign.changed' END, ARRAY(SELECT key FROM new_rows));
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER campaigns_2_events_after_insert AFTER INSERT ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_events();

CREATE OR REPLACE TRIGGER campaigns_2_events_after_update AFTER UPDATE ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_events();

CREATE OR REPLACE TRIGGER campaigns_2_events_after_delete AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_events();
