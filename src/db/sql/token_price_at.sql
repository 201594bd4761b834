-- A token's USD price at an instant, by claim_value's rule: its newest price from at most two hours
-- before the instant up to it, never one from after it; at the same instant an imported price wins
-- over a source's. The chain's native token answers to both of its names (0x0…0 and 0xeeee…eeee).
-- NULL when no price is that recent. GET /signatures prices a pegged incentive's peg and asset with it
-- at the qualifying transaction's block time. (claim_value spells the same lookup out inline, so that
-- PostgreSQL plans it with the query that values many claims at once.)
CREATE OR REPLACE FUNCTION token_price_at(p_chain_id integer, p_address text, p_at timestamptz)
RETURNS numeric LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT p.price_usd FROM token_prices AS p
   WHERE p.chain_id = p_chain_id
     AND p.address = ANY (CASE WHEN p_address IN ('0x0000000000000000000000000000000000000000', '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee')
                               THEN ARRAY['0x0000000000000000000000000000000000000000', '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee']
                               ELSE ARRAY[p_address] END)
     AND p.at <= p_at AND p.at >= p_at - interval '2 hours'
   ORDER BY p.at DESC, (p.source = 'import') DESC
   LIMIT 1;
$$;
