-- Incentives, last (the order: README.md here): each campaign whose incentives a statement wrote is
-- changed for the streams (GET /events), with the state incentives_documents() left. The claims'
-- own totals updates are left out by the WHEN clause, as there: claims_events() reports those. A bulk
-- load sends its refetch event from the campaigns and claims it writes.
CREATE OR REPLACE FUNCTION incentives_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM record_campaign_events('campaign.changed', ARRAY(SELECT o.campaign_key FROM old_rows AS o));
  ELSE
    PERFORM record_campaign_events('campaign.changed', ARRAY(SELECT n.campaign_key FROM new_rows AS n));
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER incentives_2_events_after_insert AFTER INSERT ON incentives
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_events();

CREATE OR REPLACE TRIGGER incentives_2_events_after_update AFTER UPDATE ON incentives
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
  WHEN (coalesce(current_setting('campaign_service.claims_writing', true), '') <> 'on')
  EXECUTE FUNCTION incentives_events();

CREATE OR REPLACE TRIGGER incentives_2_events_after_delete AFTER DELETE ON incentives
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_events();
