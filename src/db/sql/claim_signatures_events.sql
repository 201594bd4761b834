-- Claim signatures, after the claimant feed (the order: README.md here): a signature inserted is a
-- `signature.issued` event (GET /events), ordered at commit like every event. GET /signatures
-- issues them; an import's signatures are events too, but a bulk load (refresh deferred) sends none:
-- its claims' refetch tells clients to read again.
CREATE OR REPLACE FUNCTION claim_signatures_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() OR NOT EXISTS (SELECT 1 FROM new_rows) THEN
    RETURN NULL;
  END IF;
  INSERT INTO events (type, chain_id, campaign_id, claimant, data)
  SELECT 'signature.issued', c.chain_id, c.public_id, n.claimant,
         jsonb_build_object('campaignId', c.public_id, 'chainId', c.chain_id, 'claimant', n.claimant, 'incentiveId', n.incentive_id,
                            'signature', n.signature, 'referrer', n.referrer, 'txHash', n.tx_hash)
    FROM new_rows AS n JOIN campaigns AS c ON c.key = n.campaign_key
   ORDER BY n.id;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claim_signatures_events_after_insert AFTER INSERT ON claim_signatures
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION claim_signatures_events();
