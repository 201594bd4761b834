-- A campaign's chain never changes: it is part of the campaign's natural key and public ID
-- (`<chainId>:<coreAddress>:<identifier>`), and each of its claims carries it in the claim's own natural
-- key (chain, transaction hash, log index). claims_check() checks that a written claim's chain
-- is its campaign's; this keeps that true afterwards. (A foreign key from claims (campaign_key,
-- chain_id) did both until migration 0056, and locked the campaign's row for every claim. Refusing
-- every change, not only that of a campaign with claims, leaves no race with a claim written at the
-- same moment, which no longer waits for a row lock on the campaign.)
CREATE OR REPLACE FUNCTION campaign_chain_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'campaign %: its chain_id (%) cannot change', OLD.public_id, OLD.chain_id
    USING ERRCODE = 'integrity_constraint_violation';
END
$$;

CREATE OR REPLACE TRIGGER campaigns_chain_fixed BEFORE UPDATE OF chain_id ON campaigns
  FOR EACH ROW WHEN (OLD.chain_id IS DISTINCT FROM NEW.chain_id) EXECUTE FUNCTION campaign_chain_fixed();
