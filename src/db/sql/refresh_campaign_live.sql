-- The campaign_live row of the given campaigns: per incentive with live fields its claim totals and
-- remaining balance (incentive_live_json), and the campaign's USD and token spend and available
-- budget, as JSON fragments the reads put into the stored documents' placeholders. This is what
-- every claim costs the readers' side.
--
-- A generic plan: a claim calls it for one campaign hundreds of times a second, and with `keys` unknown
-- the planner would otherwise plan the statement again on every call (a custom plan, a large share of
-- its cost); the generic plan of nested index lookups also serves a full refresh (after a bulk write),
-- only a little slower than a plan made for every campaign.
--
-- After lock_campaign_refresh(): concurrent claims of one campaign refresh its row one after the
-- other, each seeing the totals the one before committed.
CREATE OR REPLACE FUNCTION refresh_campaign_live(keys integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  PERFORM lock_campaign_refresh(keys);
  INSERT INTO campaign_live AS l (campaign_key, incentive_fields, list_totals, detail_totals)
  SELECT key,
         incentive_fields,
         '"usdSpend":' || json_number(usd_spend::float8) || ',"tokenSpend":' || json_number(token_spend::float8)
           || ',"availableBudgetUsd":' || json_text(available_budget_usd),
         '"availableBudgetUsd":' || json_text(available_budget_usd)
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
