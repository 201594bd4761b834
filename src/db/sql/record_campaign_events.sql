-- One event per campaign of `keys`, of type `event_type` ('campaign.created' or 'campaign.changed'),
-- with the campaign's state as the event streams report it (CampaignEvent in the OpenAPI document):
-- its available budget, whether it is active, exhausted or ended at the write's time. Called by the
-- triggers after they refreshed what they changed (documents, totals, flags), so the state is final.
--
-- The generic plan always: PL/pgSQL would otherwise plan the INSERT for each call's `keys`, because
-- the generic plan's estimate (ten keys) always looks dearer than a custom plan for the one key a
-- claim's transaction passes, and that planning was most of what this event cost a claim
-- (bench/claim-transaction-cost.sh). Both plans are the same primary-key lookups.
CREATE OR REPLACE FUNCTION record_campaign_events(event_type text, keys integer[]) RETURNS void LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  IF cardinality(keys) = 0 THEN
    RETURN;
  END IF;
  INSERT INTO events (type, chain_id, campaign_id, data)
  SELECT event_type, c.chain_id, c.public_id,
         jsonb_build_object(
           'campaignId', c.public_id,
           'chainId', c.chain_id,
           -- campaign_live.detail_totals is the member `"availableBudgetUsd":<text or null>`.
           'availableBudgetUsd', CASE WHEN l.detail_totals IS NULL THEN NULL ELSE ('{' || l.detail_totals || '}')::jsonb -> 'availableBudgetUsd' END,
           'isActive', campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, now()),
           'exhausted', NOT c.has_budget_left,
           'ended', coalesce(c.end_time <= now(), false),
           'startTime', iso_utc(c.start_time),
           'endTime', iso_utc(c.end_time))
    FROM campaigns AS c
    LEFT JOIN campaign_live AS l ON l.campaign_key = c.key
   WHERE c.key = ANY(keys)
   ORDER BY c.key;
END
$$;
