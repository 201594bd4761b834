-- The stored detail document of the campaign with public ID `wanted`, its live fields (joined by the
-- placeholder character, as the list query sends them) and whether it is active at `at`.
--
-- PL/pgSQL for its plan, which PostgreSQL keeps per server connection: planning this three-table
-- join costs several times what running it does (an index lookup each), and behind PgBouncer in
-- transaction mode the API cannot keep a named prepared statement across transactions.
CREATE OR REPLACE FUNCTION campaign_detail(wanted text, at timestamptz)
RETURNS TABLE (detail text, live text, is_active boolean)
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: with a constant claimant (NULL) or ID, a custom plan looks cheaper on
-- paper, so the automatic choice would plan again on every call, which is what this function saves.
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  SELECT d.detail,
         array_to_string(l.incentive_fields || l.detail_totals, chr(1)),
         campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, at)
    FROM campaigns AS c
    JOIN campaign_documents AS d ON d.campaign_key = c.key
    JOIN campaign_live AS l ON l.campaign_key = c.key
   WHERE c.public_id = wanted;
END;
$$;
