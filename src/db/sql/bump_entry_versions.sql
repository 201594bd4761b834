-- Gives the trending entries of campaigns `keys` new versions (entry_versions): something an entry
-- shows changed. A campaign without a row yet (a new one) gets one: the update alone serves the
-- usual call (a claim's, whose campaign has its row), the insert only a call it left rows to.
--
-- PL/pgSQL for its plan, kept per server connection: every claim calls it, and as a SQL function
-- its statement would be planned on every call, which costs more than the rest of what a claim does.
CREATE OR REPLACE FUNCTION bump_entry_versions(keys integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  bumped bigint;
BEGIN
  UPDATE entry_versions AS v SET version = nextval('entry_version_seq') WHERE v.campaign_key = ANY(keys);
  GET DIAGNOSTICS bumped = ROW_COUNT;
  IF bumped < cardinality(keys) THEN
    -- Keys without a row (or given twice): the rest get new versions once more, which is as good.
    INSERT INTO entry_versions AS v (campaign_key, version)
    SELECT c.key, nextval('entry_version_seq') FROM campaigns AS c WHERE c.key IN (SELECT unnest(keys))
    ON CONFLICT (campaign_key) DO UPDATE SET version = excluded.version;
  END IF;
END
$$;
