-- The stored list documents of campaigns `keys`, in that order, with their live fields (joined by the
-- placeholder character), whether each is active at `at`, and its block time and public ID (where a
-- walk of the list continues after it); every row also carries the campaign set's version, and with
-- no key there is one row with the version and NULL documents, so that the caller always learns the
-- version its snapshot saw (which decides whether a cached total holds).
--
-- PL/pgSQL for its plan, which PostgreSQL keeps per server connection: behind PgBouncer in
-- transaction mode the API cannot keep a named prepared statement across transactions, and planning
-- this four-table join on every list page costs more than running it (a primary-key lookup each).
-- The caller's statement only picks the page's keys.
CREATE OR REPLACE FUNCTION campaign_list_items(keys integer[], at timestamptz)
RETURNS TABLE (version text, document text, live text, is_active boolean, block_timestamp bigint, public_id text)
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: the keys differ on every call, and the plan does not depend on them.
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  SELECT v.value::text,
         d.list_item,
         array_to_string(l.incentive_fields || l.list_totals, chr(1)),
         campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, at),
         c.block_timestamp,
         c.public_id
    FROM campaign_set_version AS v
    LEFT JOIN (unnest(keys) WITH ORDINALITY AS page(key, ord)
               JOIN campaigns AS c ON c.key = page.key
               JOIN campaign_documents AS d ON d.campaign_key = page.key
               JOIN campaign_live AS l ON l.campaign_key = page.key) ON true
   ORDER BY page.ord;
END;
$$;
