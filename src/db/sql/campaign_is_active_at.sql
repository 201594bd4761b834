-- Whether a campaign is active at `at`: started, not ended, and some incentive can still pay
-- (an exhausted campaign is not active). Never NULL. The one definition: the API's filters call it on `campaigns AS c`
-- and so does trending_batch_versions().
--
-- SQL, IMMUTABLE and without SET so that the planner inlines it: a statement that calls it is
-- planned as if the expression were written there, and its index plans are unchanged.
CREATE OR REPLACE FUNCTION campaign_is_active_at(start_time timestamptz, end_time timestamptz, has_budget_left boolean, at timestamptz)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (start_time IS NULL OR start_time <= at) AND (end_time IS NULL OR end_time > at) AND has_budget_left
$$;
