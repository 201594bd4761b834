-- One batch of a trending page: of `ranked` (campaign keys, best first), those in `passing` (the
-- ones that pass the request's filters, in any order), as how many pass and the entries of the
-- `take` of them that follow the first `skip`, in rank order, with `claimant`'s standing.
--
-- PL/pgSQL for its plan, which PostgreSQL keeps per server connection: behind PgBouncer in
-- transaction mode every statement the API sends is parsed and planned again, so the statement
-- holds only what differs per request (the filters, on one table by primary key: cheap to plan),
-- and this function the rest: putting the passing keys in rank order and describing the page.
CREATE OR REPLACE FUNCTION trending_page(ranked integer[], passing integer[], skip integer, take integer, claimant text)
RETURNS json
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: its inputs are arrays of a few dozen keys, and the plan does not depend on them.
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN json_build_object(
    'passing', coalesce(cardinality(passing), 0),
    'entries', trending_entries(
      ARRAY(SELECT r.key
              FROM unnest(ranked) WITH ORDINALITY AS r(key, rank)
             WHERE r.key = ANY(passing)
             ORDER BY r.rank
            OFFSET skip LIMIT take),
      claimant));
END;
$$;
