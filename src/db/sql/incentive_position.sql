-- The position among a campaign's incentives of the incentive BoostCore knows by `incentive_id`: the
-- inverse of incentive_chain_id(), whose comment says when the two differ. NULL for an incentive the
-- indexer skipped (a type the service does not list): the campaign does not list it.
--
-- SQL and STABLE so that the planner inlines it into the calling statement.
CREATE OR REPLACE FUNCTION incentive_position(campaign_key integer, incentive_id integer)
RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN count(ii.incentive_id) = 0 THEN incentive_position.incentive_id
              ELSE max(ii.position) FILTER (WHERE ii.incentive_id = incentive_position.incentive_id) END
    FROM campaigns AS c
    JOIN indexer_incentives AS ii ON ii.chain_id = c.chain_id AND ii.core_address = c.core_address AND ii.boost_id = c.identifier
   WHERE c.key = incentive_position.campaign_key
$$;
