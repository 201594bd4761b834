-- Incentives: claim totals change on every claim (refresh only); a new, removed or re-typed
-- incentive also changes what the token filters match (new version).
CREATE OR REPLACE FUNCTION incentives_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
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
  IF TG_OP <> 'UPDATE' THEN
    PERFORM bump_campaign_set_version();
  ELSIF EXISTS (SELECT 1 FROM old_rows AS o FULL JOIN new_rows AS n USING (campaign_key, position)
                 WHERE (o.type, o.params) IS DISTINCT FROM (n.type, n.params)) THEN
    PERFORM bump_campaign_set_version();
  END IF;
  PERFORM refresh_campaigns(keys);
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER incentives_after_insert AFTER INSERT ON incentives
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_after_write();

CREATE OR REPLACE TRIGGER incentives_after_update AFTER UPDATE ON incentives
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_after_write();

CREATE OR REPLACE TRIGGER incentives_after_delete AFTER DELETE ON incentives
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_after_write();
