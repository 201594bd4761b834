-- Values the claims that wait for a price (claims.value_pending) on `p_chain_id` that pay one of
-- `p_addresses`, or any of the chain's pending claims when a native token's price is among them (their
-- ETH value needs it), among the claims the new prices can value: those from `p_from` (the earliest
-- new price) to two hours after `p_to` (the latest), as claim_value() takes a price. Called in the
-- transaction that writes the prices; the update goes through claims_after_write(), so totals,
-- documents and the claim feed follow. Returns how many claims got a value.
CREATE OR REPLACE FUNCTION revalue_claims(p_chain_id integer, p_addresses text[], p_from timestamptz, p_to timestamptz) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  all_assets boolean := p_addresses && ARRAY['0x0000000000000000000000000000000000000000', '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'];
  valued bigint;
BEGIN
  WITH priced AS (
    SELECT c.id, v.usd_value, v.eth_value_wei
      FROM claims AS c
      JOIN incentives AS i ON i.campaign_key = c.campaign_key AND i.position = c.incentive_position
      CROSS JOIN LATERAL claim_value(c.chain_id, i.asset_address, c.amount, c.claimed_at) AS v
     WHERE c.value_pending AND c.chain_id = p_chain_id AND c.claimed_at BETWEEN p_from AND p_to + interval '2 hours'
       AND (all_assets OR i.asset_address = ANY (p_addresses))
  )
  UPDATE claims AS c
     SET usd_value = coalesce(p.usd_value, 0),
         eth_value_wei = coalesce(p.eth_value_wei, 0),
         value_pending = p.usd_value IS NULL OR p.eth_value_wei IS NULL
    FROM priced AS p
   WHERE c.id = p.id AND (p.usd_value IS NOT NULL OR p.eth_value_wei IS NOT NULL)
     AND (c.usd_value, c.eth_value_wei, c.value_pending) IS DISTINCT FROM
         (coalesce(p.usd_value, 0), coalesce(p.eth_value_wei, 0), p.usd_value IS NULL OR p.eth_value_wei IS NULL);
  GET DIAGNOSTICS valued = ROW_COUNT;
  RETURN valued;
END
$$;
