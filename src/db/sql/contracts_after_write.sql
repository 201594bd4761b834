-- Named contracts: the detail's actionClaimant.targetContractName. Which named contracts campaigns
-- target (explore contracts) is cached per campaign_set_version, so any change bumps the version,
-- deferred or not. A statement that changed no row (an upsert of what is already there, as a
-- re-import does) changes nothing.
CREATE OR REPLACE FUNCTION contracts_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM changed_rows) THEN
    RETURN NULL;
  END IF;
  PERFORM bump_campaign_set_version();
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  PERFORM refresh_campaigns(ARRAY(
    SELECT c.key FROM campaigns AS c JOIN changed_rows AS n
        ON n.chain_id = (c.action_claimant->>'chainId')::integer AND n.address = c.action_claimant->>'targetContract'));
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER contracts_after_insert AFTER INSERT ON contracts
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION contracts_after_write();

CREATE OR REPLACE TRIGGER contracts_after_update AFTER UPDATE ON contracts
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION contracts_after_write();

CREATE OR REPLACE TRIGGER contracts_after_delete AFTER DELETE ON contracts
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION contracts_after_write();
