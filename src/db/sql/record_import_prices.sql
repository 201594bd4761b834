-- An imported token price (tokens.price_usd with price_source 'import') is the operator's word on the
-- price now: it goes into the price history as source 'import', at the writing transaction's time, and
-- the claims waiting for that token's price (or, for a native token, for their ETH value) are valued
-- with it. A price a source set (src/ingest/prices.ts) is in the history already.
CREATE OR REPLACE FUNCTION record_import_prices() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  chains integer[];
  addresses text[];
  prices numeric[];
  chain integer;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.chain_id), array_agg(n.address), array_agg(n.price_usd) INTO chains, addresses, prices
      FROM new_tokens AS n WHERE n.price_usd > 0 AND n.price_source = 'import';
  ELSE
    SELECT array_agg(n.chain_id), array_agg(n.address), array_agg(n.price_usd) INTO chains, addresses, prices
      FROM new_tokens AS n JOIN old_tokens AS o USING (chain_id, address)
     WHERE n.price_usd > 0 AND n.price_source = 'import'
       AND (n.price_usd, n.price_source) IS DISTINCT FROM (o.price_usd, o.price_source);
  END IF;
  IF chains IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO token_prices (chain_id, address, at, source, price_usd)
  SELECT u.chain_id, u.address, now(), 'import', u.price_usd FROM unnest(chains, addresses, prices) AS u(chain_id, address, price_usd)
  ON CONFLICT (chain_id, address, at, source) DO UPDATE SET price_usd = excluded.price_usd;
  FOR chain IN SELECT DISTINCT c FROM unnest(chains) AS c LOOP
    PERFORM revalue_claims(chain, ARRAY(SELECT u.address FROM unnest(chains, addresses) AS u(chain_id, address) WHERE u.chain_id = chain), now(), now(), NULL, NULL, NULL);
  END LOOP;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER tokens_record_import_prices_insert AFTER INSERT ON tokens
  REFERENCING NEW TABLE AS new_tokens FOR EACH STATEMENT EXECUTE FUNCTION record_import_prices();

CREATE OR REPLACE TRIGGER tokens_record_import_prices_update AFTER UPDATE ON tokens
  REFERENCING OLD TABLE AS old_tokens NEW TABLE AS new_tokens FOR EACH STATEMENT EXECUTE FUNCTION record_import_prices();
