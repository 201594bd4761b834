-- Gives claimants `claimants` new versions (claimant_versions): something their reward-kit profile
-- shows of them alone changed. Locks their rows in address order, so two writers never wait on each
-- other's claimants in opposite orders.
--
-- PL/pgSQL for its plan, kept per server connection: every claim calls it (see bump_entry_versions()).
CREATE OR REPLACE FUNCTION bump_claimant_versions(claimants text[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  INSERT INTO claimant_versions AS v (claimant, version)
  SELECT a.claimant, nextval('entry_version_seq')
    FROM (SELECT DISTINCT t.claimant FROM unnest(claimants) AS t(claimant) WHERE t.claimant IS NOT NULL ORDER BY 1) AS a
  ON CONFLICT (claimant) DO UPDATE SET version = excluded.version;
END
$$;
