-- Incentives, first of their triggers (the order: README.md here). A new, removed or re-typed
-- incentive changes the campaign's documents and what the token filters match (a new campaign set
-- version). Claim totals change on every claim, and only campaign_live, the entry versions and the
-- flags follow them: claims_totals() moves the totals and does that itself, and its updates are
-- flagged (campaign_service.claims_writing) so that the update triggers' WHEN clause leaves them out
-- before PostgreSQL calls a function with the transition tables. An update of the totals from
-- elsewhere (recompute_incentive_totals()) comes here.
CREATE OR REPLACE FUNCTION incentives_documents() RETURNS trigger LANGUAGE plpgsql AS $$
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
  IF cardinality(keys) = 0 THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    IF NOT EXISTS (SELECT 1 FROM old_rows AS o FULL JOIN new_rows AS n USING (campaign_key, position)
                    WHERE (o.type, o.params) IS DISTINCT FROM (n.type, n.params)) THEN
      -- Only the claim totals moved: the documents do not hold them, and the flags can only move
      -- where an incentive crossed its claim limit or budget, either way.
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
      RETURN NULL;
    END IF;
  END IF;
  PERFORM bump_campaign_set_version();
  PERFORM refresh_campaigns(keys);
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER incentives_1_documents_after_insert AFTER INSERT ON incentives
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_documents();

CREATE OR REPLACE TRIGGER incentives_1_documents_after_update AFTER UPDATE ON incentives
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  WHEN (coalesce(current_setting('campaign_service.claims_writing', true), '') <> 'on')
  EXECUTE FUNCTION incentives_documents();

CREATE OR REPLACE TRIGGER incentives_1_documents_after_delete AFTER DELETE ON incentives
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_documents();
