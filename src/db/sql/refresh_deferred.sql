-- True while a writer has set campaign_service.defer_refresh = on for its transaction: the triggers
-- leave the derived state alone, and the writer calls recompute_incentive_totals() and
-- refresh_campaigns(NULL) (or refresh_campaigns(keys)) before it commits.
CREATE OR REPLACE FUNCTION refresh_deferred() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT coalesce(current_setting('campaign_service.defer_refresh', true), '') = 'on';
$$;
