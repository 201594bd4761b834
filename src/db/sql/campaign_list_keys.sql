-- The keys of one page of campaigns filtered by nothing but the token whitelist (the default list
-- and its pages): newest first (ties on public ID), or with `active_first` the campaigns active at
-- `at` first, each half newest first. Every other filter has its statement built by the API
-- (src/repositories/campaigns.repository.ts), whose plan depends on the values.
--
-- PL/pgSQL for its plans, which PostgreSQL keeps per server connection: behind PgBouncer in
-- transaction mode the API keeps no named prepared statement, and planning these queries on every
-- request costs more than running them. The generic plan
-- reads the index in order whatever the limit and offset (each half of `active_first` too, and the
-- whitelisted newest-first page index-only down to deep pages), which is what a plan for the
-- values at hand chooses; without the SET, PostgreSQL would plan per call because it prices a
-- parameter LIMIT at a tenth of the table.
CREATE OR REPLACE FUNCTION campaign_list_keys(whitelisted_only boolean, active_first boolean, page_limit integer, page_offset integer, at timestamptz)
RETURNS integer[]
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  IF active_first THEN
    RETURN ARRAY(
      SELECT halves.key FROM (
        (SELECT c.key, 0 AS rank, c.block_timestamp, c.public_id FROM campaigns AS c
          WHERE (c.pays_only_whitelisted_tokens OR NOT whitelisted_only)
            AND campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, at)
          ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT page_offset + page_limit)
        UNION ALL
        (SELECT c.key, 1 AS rank, c.block_timestamp, c.public_id FROM campaigns AS c
          WHERE (c.pays_only_whitelisted_tokens OR NOT whitelisted_only)
            AND NOT campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, at)
          ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT page_offset + page_limit)
      ) AS halves
      ORDER BY halves.rank, halves.block_timestamp DESC NULLS LAST, halves.public_id
      LIMIT page_limit OFFSET page_offset);
  ELSIF whitelisted_only THEN
    -- Its own statement so that the plan can use the partial index of whitelisted campaigns.
    RETURN ARRAY(
      SELECT c.key FROM campaigns AS c WHERE c.pays_only_whitelisted_tokens
       ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT page_limit OFFSET page_offset);
  ELSE
    RETURN ARRAY(
      SELECT c.key FROM campaigns AS c
       ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT page_limit OFFSET page_offset);
  END IF;
END;
$$;
