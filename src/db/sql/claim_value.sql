-- A claim's values from the prices at its time. A token's price at an instant is its newest price
-- from at most two hours before the instant up to it, never one from after it (a claim is valued
-- with what the price was when it was made); at the same instant an imported price wins over a
-- source's. Two hours cover a source that prices a token hourly, with room for its own delay.
--
-- usd_value = amount / 10^decimals × the asset's price, truncated to micro-USD and capped at 10^20 USD
-- (no real claim is worth that, but a token minted in absurd amounts is, and the cap keeps the sums
-- of up to 10^12 claims within the totals' numeric(38,6)); eth_value_wei = usd_value / the price of
-- the chain's native token (0x0…0, or 0xeeee…eeee as some imports name it), in wei, truncated. A
-- value whose price (or the asset's decimals) is not known is NULL. An incentive without an asset
-- (points) is worth 0 of both.
--
-- One SELECT returning a table, so that PostgreSQL inlines it into the query that calls it (FROM,
-- LATERAL) and plans the price lookups with it, instead of running a query per claim.
CREATE OR REPLACE FUNCTION claim_value(p_chain_id integer, p_asset text, p_amount numeric, p_at timestamptz)
RETURNS TABLE (usd_value numeric, eth_value_wei numeric)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT usd.value,
         CASE WHEN p_asset IS NULL THEN 0 ELSE div(usd.value * 10::numeric ^ 18, native.price) END
    FROM (SELECT CASE WHEN p_asset IS NULL THEN 0
                      WHEN asset.price IS NULL OR t.decimals IS NULL THEN NULL
                      -- Multiplying by 0.000001 keeps every digit, where dividing rounds to the
                      -- scale PostgreSQL picks for the quotient.
                      ELSE least(div(p_amount * asset.price * 1000000, 10::numeric ^ t.decimals), 10::numeric ^ 26) * 0.000001
                 END AS value
            FROM (SELECT 1) AS one
            LEFT JOIN tokens AS t ON t.chain_id = p_chain_id AND t.address = p_asset
            LEFT JOIN LATERAL (
              SELECT p.price_usd AS price FROM token_prices AS p
               WHERE p.chain_id = p_chain_id AND p.address = p_asset AND p.at <= p_at AND p.at >= p_at - interval '2 hours'
               ORDER BY p.at DESC, (p.source = 'import') DESC
               LIMIT 1) AS asset ON true) AS usd
    LEFT JOIN LATERAL (
      -- The newest price of each of the two names, each found at the end of its own index range
      -- (with both names in one condition, the scan reads every price of the chain's two hours).
      SELECT n.price FROM (
        (SELECT p.price_usd AS price, p.at, p.source = 'import' AS imported, p.address FROM token_prices AS p
          WHERE p.chain_id = p_chain_id AND p.address = '0x0000000000000000000000000000000000000000'
            AND p.at <= p_at AND p.at >= p_at - interval '2 hours'
          ORDER BY p.at DESC, (p.source = 'import') DESC
          LIMIT 1)
        UNION ALL
        (SELECT p.price_usd, p.at, p.source = 'import', p.address FROM token_prices AS p
          WHERE p.chain_id = p_chain_id AND p.address = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'
            AND p.at <= p_at AND p.at >= p_at - interval '2 hours'
          ORDER BY p.at DESC, (p.source = 'import') DESC
          LIMIT 1)) AS n
       ORDER BY n.at DESC, n.imported DESC, n.address
       LIMIT 1) AS native ON true;
$$;
