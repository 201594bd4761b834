-- Incentives: claim totals change on every claim, and only campaign_live follows them; a new,
-- removed or re-typed incentive changes the documents and what the token filters match (new version).
-- The claims trigger (claims_after_write()) moves the totals and does what follows itself, for the
-- campaigns it knows; its updates are flagged (campaign_service.claims_writing) and do not fire the
-- update trigger at all: its WHEN clause leaves them out before PostgreSQL calls this function, which
-- every claim paid for otherwise (a large share of a claim's PostgreSQL CPU, with the transition
-- tables handed to it; docs/performance.md).
CREATE OR REPLACE FUNCTION incentives_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  keys integer[];
  touched integer[];
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
  IF cardinality(keys) = 0 THEN
    RETURN NULL;
  END IF;
  touched := keys;
  IF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (SELECT 1 FROM old_rows AS o FULL JOIN new_rows AS n USING (campaign_key, position)
                    WHERE (o.type, o.params) IS DISTINCT FROM (n.type, n.params)) THEN
      -- Only the claim totals moved (a claim was written): the documents do not hold them, and the
      -- flags can only move where an incentive crossed its claim limit or budget, either way. The
      -- trending entries show the totals: new versions.
      PERFORM refresh_campaign_live(keys);
      PERFORM bump_entry_versions(keys);
      keys := ARRAY(SELECT DISTINCT o.campaign_key
                      FROM old_rows AS o JOIN new_rows AS n USING (campaign_key, position)
                     WHERE (coalesce(o.total_claims >= o.claim_limit, false) OR coalesce(o.total_amount_claimed >= o.total_budget, false))
                           IS DISTINCT FROM
                           (coalesce(n.total_claims >= n.claim_limit, false) OR coalesce(n.total_amount_claimed >= n.total_budget, false)));
      IF cardinality(keys) > 0 THEN
        PERFORM refresh_campaign_flags(keys);
      END IF;
      PERFORM record_campaign_events('campaign.changed', touched);
      RETURN NULL;
    END IF;
  END IF;
  PERFORM bump_campaign_set_version();
  PERFORM refresh_campaigns(keys);
  PERFORM record_campaign_events('campaign.changed', keys);
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER incentives_after_insert AFTER INSERT ON incentives
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_after_write();

CREATE OR REPLACE TRIGGER incentives_after_update AFTER UPDATE ON incentives
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  WHEN (coalesce(current_setting('campaign_service.claims_writing', true), '') <> 'on')
  EXECUTE FUNCTION incentives_after_write();

CREATE OR REPLACE TRIGGER incentives_after_delete AFTER DELETE ON incentives
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_after_write();
