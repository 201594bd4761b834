-- Rebuilds what claims change about the given campaigns (all of them when `keys` is NULL): the
-- flags (refresh_campaign_flags) and the campaign_live row (refresh_campaign_live). refresh_campaigns()
-- calls it; a claim calls the two parts itself, the flags only when they can have moved (see
-- incentives_after_write). Skipped while a bulk loader has deferred it (refresh_deferred()).
CREATE OR REPLACE FUNCTION refresh_campaign_totals(keys integer[]) RETURNS void LANGUAGE plpgsql
  SET jit = off SET work_mem = '64MB' AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN;
  END IF;
  IF keys IS NULL THEN
    keys := ARRAY(SELECT key FROM campaigns);
  ELSE
    keys := ARRAY(SELECT DISTINCT k FROM unnest(keys) AS k WHERE k IS NOT NULL);
  END IF;

  PERFORM refresh_campaign_flags(keys);
  PERFORM refresh_campaign_live(keys);
END
$$;
