-- Records every change to the claims that claim volumes depend on in claim_changes, in the writing
-- transaction, for the readers that keep volumes in memory (src/services/claim-windows.ts).
-- A bulk load (refresh deferred) or a TRUNCATE records one reload marker instead of a row per claim.
-- It also notifies channel claim_changes (one notification per transaction: PostgreSQL folds equal
-- ones), so that an idle reader polls the feed when something changed instead of every second.
CREATE OR REPLACE FUNCTION claims_record_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' OR refresh_deferred() THEN
    INSERT INTO claim_changes (sign) VALUES (0);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign)
    SELECT n.campaign_key, c.public_id, n.claimed_at, n.usd_value, 1
      FROM new_claims AS n JOIN campaigns AS c ON c.key = n.campaign_key;
  ELSIF TG_OP = 'DELETE' THEN
    -- A claim deleted with its campaign (a cascade) no longer finds it: its public ID is not needed
    -- then (the reader knows every campaign whose claims it counted), so any text will do.
    INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign)
    SELECT o.campaign_key, coalesce(c.public_id, ''), o.claimed_at, o.usd_value, -1
      FROM old_claims AS o LEFT JOIN campaigns AS c ON c.key = o.campaign_key;
  ELSE
    -- Only updates that move a claim between campaigns, instants or values.
    INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign)
    SELECT change.campaign_key, coalesce(c.public_id, ''), change.claimed_at, change.usd_value, change.sign
      FROM old_claims AS o
      JOIN new_claims AS n USING (id)
     CROSS JOIN LATERAL (VALUES (o.campaign_key, o.claimed_at, o.usd_value, -1),
                                (n.campaign_key, n.claimed_at, n.usd_value, 1))
                        AS change(campaign_key, claimed_at, usd_value, sign)
      LEFT JOIN campaigns AS c ON c.key = change.campaign_key
     WHERE (o.campaign_key, o.claimed_at, o.usd_value) IS DISTINCT FROM (n.campaign_key, n.claimed_at, n.usd_value);
  END IF;
  PERFORM prune_claim_changes();
  PERFORM pg_notify('claim_changes', '');
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claims_changes_after_insert AFTER INSERT ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_record_changes();

CREATE OR REPLACE TRIGGER claims_changes_after_update AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_claims NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_record_changes();

CREATE OR REPLACE TRIGGER claims_changes_after_delete AFTER DELETE ON claims
  REFERENCING OLD TABLE AS old_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_record_changes();

CREATE OR REPLACE TRIGGER claims_changes_after_truncate AFTER TRUNCATE ON claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_record_changes();
