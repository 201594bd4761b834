-- The first instant after `at` at which some campaign starts or ends: until then, whether each
-- campaign has started or ended is what it was at `at`, so an answer that depends on the clock only
-- through campaign_is_active_at() stays right (while the campaigns are unchanged). NULL when no
-- campaign starts or ends after `at`. Two index lookups (campaigns_start_time_idx, campaigns_end_time_idx).
CREATE OR REPLACE FUNCTION campaigns_next_start_or_end(at timestamptz) RETURNS timestamptz LANGUAGE sql STABLE AS $$
  SELECT LEAST((SELECT min(c.start_time) FROM campaigns AS c WHERE c.start_time > at),
               (SELECT min(c.end_time) FROM campaigns AS c WHERE c.end_time > at))
$$;
