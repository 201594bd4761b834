-- A token's USD price at instant `at`: the newest price from at most two hours before `at` up to
-- `at`, never one from after it (a claim is valued with what the price was when it was made); at the
-- same instant an imported price wins over a source's. NULL when there is none: the claim waits.
-- Two hours cover a source that prices a token hourly, with room for its own delay.
CREATE OR REPLACE FUNCTION price_at(p_chain_id integer, p_address text, p_at timestamptz) RETURNS numeric
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT p.price_usd
    FROM token_prices AS p
   WHERE p.chain_id = p_chain_id AND p.address = p_address AND p.at <= p_at AND p.at >= p_at - interval '2 hours'
   ORDER BY p.at DESC, (p.source = 'import') DESC
   LIMIT 1;
$$;
