-- Records every change to the claims that claim volumes depend on in claim_changes, in the writing
-- transaction, for the readers that keep volumes in memory (src/services/claim-windows.ts).
-- A bulk load (refresh deferred) or a TRUNCATE records one reload marker instead of a row per claim.
CREATE OR REPLACE FUNCTION claims_record_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' OR refresh_deferred() THEN
    INSERT INTO claim_changes (sign) VALUES (0);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO claim_changes (campaign_key, claimed_at, usd_value, sign)
    SELECT campaign_key, claimed_at, usd_value, 1 FROM new_claims;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO claim_changes (campaign_key, claimed_at, usd_value, sign)
    SELECT campaign_key, claimed_at, usd_value, -1 FROM old_claims;
  ELSE
    -- Only updates that move a claim between campaigns, instants or values.
    INSERT INTO claim_changes (campaign_key, claimed_at, usd_value, sign)
    SELECT change.campaign_key, change.claimed_at, change.usd_value, change.sign
      FROM old_claims AS o
      JOIN new_claims AS n USING (id)
     CROSS JOIN LATERAL (VALUES (o.campaign_key, o.claimed_at, o.usd_value, -1),
                                (n.campaign_key, n.claimed_at, n.usd_value, 1))
                        AS change(campaign_key, claimed_at, usd_value, sign)
     WHERE (o.campaign_key, o.claimed_at, o.usd_value) IS DISTINCT FROM (n.campaign_key, n.claimed_at, n.usd_value);
  END IF;
  PERFORM prune_claim_changes();
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
