-- claim_signatures.incentive_id is the id BoostCore knows the incentive by (incentive_chain_id()), as
-- a signature names it, not the incentive's position in the campaign: the two differ for a boost that
-- also has incentives of a type the service does not list.
UPDATE claim_signatures AS g SET incentive_id = incentive_chain_id(g.campaign_key, g.incentive_id)
 WHERE incentive_chain_id(g.campaign_key, g.incentive_id) <> g.incentive_id;
