-- The id BoostCore knows a campaign's incentive by, from its position among the campaign's incentives:
-- what claimIncentive(boostId, incentiveId, ...) takes, what a claim signature names and what
-- claim_signatures.incentive_id holds. The two differ only where the indexer skipped an incentive of
-- a type the service does not list: indexer_incentives keeps each incentive id's position (null for
-- a skipped one). A campaign the indexer did not write (an import) lists its boost's incentives in
-- order, so there the position is the id. incentive_position() is the inverse.
--
-- SQL and STABLE so that the planner inlines it into the calling statement.
CREATE OR REPLACE FUNCTION incentive_chain_id(campaign_key integer, incentive_position integer)
RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT COALESCE(
    (SELECT ii.incentive_id
       FROM campaigns AS c
       JOIN indexer_incentives AS ii ON ii.chain_id = c.chain_id AND ii.core_address = c.core_address AND ii.boost_id = c.identifier
      WHERE c.key = incentive_chain_id.campaign_key AND ii.position = incentive_chain_id.incentive_position),
    incentive_chain_id.incentive_position)
$$;
