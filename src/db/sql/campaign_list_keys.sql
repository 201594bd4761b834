-- The keys of one page of campaigns filtered by nothing but the token whitelist (the default list
-- and its pages): newest first (ties on public ID), or with `active_first` the campaigns active at
-- `at` first, each half newest first. Every other filter has its statement built by the API
-- (src/repositories/campaigns.repository.ts), whose plan depends on the values.
--
-- With `after_public_id`, a walk's page: the `page_limit` campaigns after the position (`after_rank`,
-- 0 active or 1 not with `active_first`, `after_timestamp`, `after_public_id`) in the same order,
-- whatever was written or removed before it. `block_timestamp <= after_timestamp` bounds the index
-- scan, so that it starts at the position however deep; the ties on it up to the position are left
-- out by public ID. block_timestamp is NOT NULL, so the order's NULLS LAST never applies and the bound
-- loses no campaign. The position's arguments default to NULL: a page by offset.
--
-- PL/pgSQL for its plans, which PostgreSQL keeps per server connection: behind PgBouncer in
-- transaction mode the API keeps no named prepared statement, and planning these queries on every
-- request costs more than running them. The generic plan
-- reads the index in order whatever the limit and offset (each half of `active_first` too, and the
-- whitelisted newest-first page index-only down to deep pages), which is what a plan for the
-- values at hand chooses; without the SET, PostgreSQL would plan per call because it prices a
-- parameter LIMIT at a tenth of the table.
CREATE OR REPLACE FUNCTION campaign_list_keys(whitelisted_only boolean, active_first boolean, page_limit integer, page_offset integer, at timestamptz,
                                              after_rank integer DEFAULT NULL, after_timestamp bigint DEFAULT NULL, after_public_id text DEFAULT NULL)
RETURNS integer[]
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  IF after_public_id IS NOT NULL THEN
    IF active_first AND after_rank = 0 THEN
      -- After an active campaign: the active ones after it, then every inactive one.
      RETURN ARRAY(
        SELECT halves.key FROM (
          (SELECT c.key, 0 AS rank, c.block_timestamp, c.public_id FROM campaigns AS c
            WHERE (c.pays_only_whitelisted_tokens OR NOT whitelisted_only)
              AND campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, at)
              AND c.block_timestamp <= after_timestamp AND (c.block_timestamp < after_timestamp OR c.public_id > after_public_id)
            ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT page_limit)
          UNION ALL
          (SELECT c.key, 1 AS rank, c.block_timestamp, c.public_id FROM campaigns AS c
            WHERE (c.pays_only_whitelisted_tokens OR NOT whitelisted_only)
              AND NOT campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, at)
            ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT page_limit)
        ) AS halves
        ORDER BY halves.rank, halves.block_timestamp DESC NULLS LAST, halves.public_id
        LIMIT page_limit);
    ELSIF active_first THEN
      -- After an inactive campaign: only inactive ones follow.
      RETURN ARRAY(
        SELECT c.key FROM campaigns AS c
         WHERE (c.pays_only_whitelisted_tokens OR NOT whitelisted_only)
           AND NOT campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, at)
           AND c.block_timestamp <= after_timestamp AND (c.block_timestamp < after_timestamp OR c.public_id > after_public_id)
         ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT page_limit);
    ELSIF whitelisted_only THEN
      RETURN ARRAY(
        SELECT c.key FROM campaigns AS c
         WHERE c.pays_only_whitelisted_tokens
           AND c.block_timestamp <= after_timestamp AND (c.block_timestamp < after_timestamp OR c.public_id > after_public_id)
         ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT page_limit);
    ELSE
      RETURN ARRAY(
        SELECT c.key FROM campaigns AS c
         WHERE c.block_timestamp <= after_timestamp AND (c.block_timestamp < after_timestamp OR c.public_id > after_public_id)
         ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT page_limit);
    END IF;
  END IF;
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
