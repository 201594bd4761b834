-- Rebuilds what claims change about the given campaigns (all of them when `keys` is NULL): the
-- flags has_budget_left and pays_only_whitelisted_tokens, and the campaign_live row (the live fields
-- of each incentive, and the campaign's USD and token spend and available budget). This is all a
-- claim costs the readers' side; refresh_campaigns() calls it too. Skipped while a bulk loader has
-- deferred it (refresh_deferred()).
CREATE OR REPLACE FUNCTION refresh_campaign_totals(keys integer[]) RETURNS void LANGUAGE plpgsql
  SET jit = off SET work_mem = '64MB' AS $$
DECLARE
  flipped integer;
BEGIN
  IF refresh_deferred() THEN
    RETURN;
  END IF;
  IF keys IS NULL THEN
    keys := ARRAY(SELECT key FROM campaigns);
  ELSE
    keys := ARRAY(SELECT DISTINCT k FROM unnest(keys) AS k WHERE k IS NOT NULL);
  END IF;

  -- Tells campaigns_after_write() that this update is ours, not a write to react to.
  PERFORM set_config('campaign_service.refreshing', 'on', true);
  UPDATE campaigns AS c
     SET has_budget_left = s.has_budget_left,
         pays_only_whitelisted_tokens = s.pays_only_whitelisted_tokens
    FROM (SELECT t.key,
                 coalesce(bool_or(i.campaign_key IS NOT NULL
                                  AND NOT coalesce(i.total_claims >= i.claim_limit, false)
                                  AND NOT coalesce(i.total_amount_claimed >= i.total_budget, false)), false) AS has_budget_left,
                 NOT coalesce(bool_or(i.asset_address IS NOT NULL AND NOT coalesce(token.is_whitelisted, false)), false)
                   AS pays_only_whitelisted_tokens
            FROM unnest(keys) AS t(key)
            JOIN campaigns AS c2 ON c2.key = t.key
            LEFT JOIN incentives AS i ON i.campaign_key = t.key
            LEFT JOIN tokens AS token ON token.chain_id = c2.chain_id AND token.address = i.asset_address
           GROUP BY t.key) AS s
   WHERE c.key = s.key
     AND (c.has_budget_left, c.pays_only_whitelisted_tokens)
         IS DISTINCT FROM (s.has_budget_left, s.pays_only_whitelisted_tokens);
  GET DIAGNOSTICS flipped = ROW_COUNT;
  PERFORM set_config('campaign_service.refreshing', 'off', true);
  IF flipped > 0 THEN
    PERFORM bump_campaign_set_version();
  END IF;

  INSERT INTO campaign_live AS l (campaign_key, incentive_fields, list_totals, detail_totals)
  SELECT key,
         incentive_fields,
         '"usdSpend": ' || usd_spend::float8 || ', "tokenSpend": ' || token_spend::float8
           || ', "availableBudgetUsd": ' || json_text(available_budget_usd),
         '"availableBudgetUsd": ' || json_text(available_budget_usd)
    FROM (SELECT c.key,
                 coalesce(array_agg(incentive_live_json(i) ORDER BY i.position) FILTER (WHERE incentive_has_live_fields(i.type)),
                          '{}') AS incentive_fields,
                 coalesce(sum(i.total_usd_claimed), 0) AS usd_spend,
                 coalesce(sum(i.total_amount_claimed / 10::numeric ^ t.decimals), 0) AS token_spend,
                 round(sum(greatest(coalesce(i.total_budget, 0) - i.total_amount_claimed, 0) * t.price_usd / 10::numeric ^ t.decimals)
                         FILTER (WHERE t.price_usd IS NOT NULL AND i.total_budget IS NOT NULL), 2)::text AS available_budget_usd
            FROM unnest(keys) AS k(key)
            JOIN campaigns AS c ON c.key = k.key
            LEFT JOIN incentives AS i ON i.campaign_key = c.key
            LEFT JOIN tokens AS t ON t.chain_id = c.chain_id AND t.address = i.asset_address
           GROUP BY c.key) AS totals
  ON CONFLICT (campaign_key) DO UPDATE
     SET incentive_fields = excluded.incentive_fields, list_totals = excluded.list_totals, detail_totals = excluded.detail_totals
   WHERE (l.incentive_fields, l.list_totals, l.detail_totals)
         IS DISTINCT FROM (excluded.incentive_fields, excluded.list_totals, excluded.detail_totals);
END
$$;
