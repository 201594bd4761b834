-- Values claims that wait for a price (claims.value_pending) on `p_chain_id` that pay one of
-- `p_addresses`, or any of the chain's waiting claims when a native token's price is among them (their
-- ETH value needs it), among the claims new prices can value: those from `p_from` (the earliest new
-- price) to two hours after `p_to` (the latest), as claim_value() takes a price.
--
-- A chunk at a time: the `p_limit` waiting claims after (`p_after_key`, `p_after_id`) in (campaign
-- key, id) order (all of them when p_limit is NULL, from the first when p_after_key is NULL); it
-- returns how many it valued, how many it looked at, and the last one, where the next chunk starts.
-- Each chunk is short, so that readers and writers of the claims share the machine with a long
-- revaluation. The update goes through the claims triggers, so totals, documents and the claim feed
-- follow; in campaign order, a chunk's claims belong to few campaigns, whose totals and documents that
-- triggers then rebuild once for many claims (in time order, a chunk reached most campaigns). The
-- chunk carries what valuing needs, so that the claims are read once more only by the update, by key
-- (a second join back to claims was planned as a scan of the whole table).
CREATE OR REPLACE FUNCTION revalue_claims(
  p_chain_id integer, p_addresses text[], p_from timestamptz, p_to timestamptz,
  p_after_key integer, p_after_id bigint, p_limit integer
) RETURNS TABLE (valued bigint, looked integer, last_key integer, last_id bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  all_assets boolean := p_addresses && ARRAY['0x0000000000000000000000000000000000000000', '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'];
BEGIN
  WITH chunk AS (
    SELECT c.id, c.claimed_at, c.chain_id, c.campaign_key, c.incentive_position, c.amount FROM claims AS c
     WHERE c.value_pending AND c.chain_id = p_chain_id AND c.claimed_at BETWEEN p_from AND p_to + interval '2 hours'
       AND (p_after_key IS NULL OR (c.campaign_key, c.id) > (p_after_key, p_after_id))
     ORDER BY c.campaign_key, c.id
     LIMIT p_limit
  ), priced AS (
    SELECT k.id, v.usd_value, v.eth_value_wei
      FROM chunk AS k
      JOIN incentives AS i ON i.campaign_key = k.campaign_key AND i.position = k.incentive_position
      CROSS JOIN LATERAL claim_value(k.chain_id, i.asset_address, k.amount, k.claimed_at) AS v
     WHERE all_assets OR i.asset_address = ANY (p_addresses)
  ), updated AS (
    UPDATE claims AS c
       SET usd_value = coalesce(p.usd_value, 0),
           eth_value_wei = coalesce(p.eth_value_wei, 0),
           value_pending = p.usd_value IS NULL OR p.eth_value_wei IS NULL
      FROM priced AS p
     WHERE c.id = p.id AND (p.usd_value IS NOT NULL OR p.eth_value_wei IS NOT NULL)
       AND (c.usd_value, c.eth_value_wei, c.value_pending) IS DISTINCT FROM
           (coalesce(p.usd_value, 0), coalesce(p.eth_value_wei, 0), p.usd_value IS NULL OR p.eth_value_wei IS NULL)
    RETURNING 1
  ), last AS (
    SELECT k.campaign_key, k.id FROM chunk AS k ORDER BY k.campaign_key DESC, k.id DESC LIMIT 1
  )
  SELECT (SELECT count(*) FROM updated), (SELECT count(*)::integer FROM chunk), l.campaign_key, l.id
    INTO valued, looked, last_key, last_id
    FROM (SELECT 1) AS one LEFT JOIN last AS l ON true;
  RETURN NEXT;
END
$$;
