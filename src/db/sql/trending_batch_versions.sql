-- Trending's first batch without request filters (no filter but the token whitelist, as most
-- requests ask): which of the ranked campaigns `keys` are active at `at` (and pay only whitelisted
-- tokens, when `whitelisted_only`), in the order given, each with trending_entry_versions()'s row
-- when it falls on the page (the `page_count` passing campaigns after the first `page_from`).
--
-- The same statement the API writes for a filtered batch, but kept here, where PostgreSQL plans
-- it once per server connection: behind a transaction pooler nothing is prepared, and parsing and
-- planning the inline statement on every request costs more than this call does.
CREATE OR REPLACE FUNCTION trending_batch_versions(keys integer[], at timestamptz, whitelisted_only boolean,
                                                   page_from integer, page_count integer, claimant text)
RETURNS TABLE (passing_key integer, key integer, version text, claimant_claimed boolean, claimant_listed boolean,
               claimant_member boolean, signature_incentive_id smallint, signature text, signature_referrer text)
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: the keys differ on every call, and the plan does not depend on them.
SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH passing AS MATERIALIZED (
    SELECT r.key, r.ord FROM unnest(keys) WITH ORDINALITY AS r(key, ord)
      JOIN campaigns AS c ON c.key = r.key
     WHERE (NOT whitelisted_only OR c.pays_only_whitelisted_tokens)
       AND campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, at))
  SELECT p.key, v.*
    FROM passing AS p
    LEFT JOIN trending_entry_versions(
      ARRAY(SELECT q.key FROM passing AS q ORDER BY q.ord OFFSET page_from LIMIT page_count), claimant) AS v ON v.key = p.key
   ORDER BY p.ord;
END;
$$;
