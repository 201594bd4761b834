-- A claim's values from the prices at its time: usd_value = amount / 10^decimals × the asset's price,
-- truncated to micro-USD and capped at what usd_value holds; eth_value_wei = usd_value / the price of
-- the chain's native token (0x0…0, or 0xeeee…eeee as some imports name it), in wei, truncated. A
-- value whose price (or the asset's decimals) is not known is NULL. An incentive without an asset
-- (points) is worth 0 of both.
CREATE OR REPLACE FUNCTION claim_value(p_chain_id integer, p_asset text, p_amount numeric, p_at timestamptz,
  OUT usd_value numeric, OUT eth_value_wei numeric)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH micros AS (
    SELECT div(p_amount * price_at(p_chain_id, p_asset, p_at) * 1000000, 10::numeric ^ t.decimals) AS value
      FROM (SELECT 1) AS one
      LEFT JOIN tokens AS t ON t.chain_id = p_chain_id AND t.address = p_asset
  ), usd AS (
    -- least() would pass over a NULL; multiplying by 0.000001 keeps every digit, where dividing
    -- rounds to the scale PostgreSQL picks for the quotient.
    SELECT CASE WHEN p_asset IS NULL THEN 0
                WHEN micros.value IS NULL THEN NULL
                ELSE least(micros.value, 10::numeric ^ 38 - 1) * 0.000001
           END AS value
      FROM micros
  ), native AS (
    SELECT coalesce(price_at(p_chain_id, '0x0000000000000000000000000000000000000000', p_at),
                    price_at(p_chain_id, '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', p_at)) AS price
  )
  SELECT usd.value,
         CASE WHEN p_asset IS NULL THEN 0 ELSE div(usd.value * 10::numeric ^ 18, native.price) END
    FROM usd, native;
$$;
