-- A campaign with claims keeps its chain: each claim carries its campaign's chain in its natural key
-- (chain, transaction hash, log index), and claims_after_write() checks that they agree when claims
-- are written. This is the other side of that check, which a foreign key from claims (campaign_key,
-- chain_id) kept before; that key locked the campaign's row for every claim.
CREATE OR REPLACE FUNCTION campaign_chain_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM claims WHERE campaign_key = OLD.key) THEN
    RAISE EXCEPTION 'campaign % has claims on chain %: its chain_id cannot change', OLD.public_id, OLD.chain_id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER campaigns_chain_fixed BEFORE UPDATE OF chain_id ON campaigns
  FOR EACH ROW WHEN (OLD.chain_id IS DISTINCT FROM NEW.chain_id) EXECUTE FUNCTION campaign_chain_fixed();
