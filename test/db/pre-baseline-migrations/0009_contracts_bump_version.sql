-- Custom SQL migration file, put your code below! --
-- Which named contracts campaigns target (explore contracts) is cached per campaign_set_version:
-- naming, renaming or removing a contract in the registry changes it too, so it bumps the version.
CREATE OR REPLACE FUNCTION contracts_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
