-- The campaign flags that claims and tokens move: has_budget_left (some incentive can still pay) and
-- pays_only_whitelisted_tokens, for the given campaigns. A changed flag changes what the filters match,
-- so it bumps the campaign set's version (its `value`; the flags are not what campaigns target).
-- Called by refresh_campaigns(), and by claims_totals() and incentives_documents() only when a write moved an
-- incentive across its limit or budget (most claims do not).
--
-- A generic plan: a claim calls it for one campaign hundreds of times a second, and with `keys` unknown
-- the planner would otherwise plan the statement again on every call (a custom plan, a large share of
-- its cost); the generic plan of nested index lookups also serves a full refresh (after a bulk write),
-- only a little slower than a plan made for every campaign.
CREATE OR REPLACE FUNCTION refresh_campaign_flags(keys integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  flipped integer;
BEGIN
  -- Two claims of one campaign at once each reach an incentive's limit: the second must see the first's.
  PERFORM lock_campaign_refresh(keys);
  -- Tells the campaigns triggers (campaigns_documents(), campaigns_events()) that this update is ours,
  -- not a write to react to.
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
  -- The filters' version, not the targets': a claim that spends the last of a budget must not make
  -- every replica reread which campaigns target which named contracts (a query over every action step).
  IF flipped > 0 THEN
    UPDATE campaign_set_version SET value = value + 1 WHERE id = 1;
  END IF;
END
$$;
