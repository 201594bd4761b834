-- claim_changes_after(), for callers through the pool: PL/pgSQL for its plan, which PostgreSQL keeps
-- per server connection (with claim_changes_after() inlined into it). Behind PgBouncer in transaction
-- mode the API cannot keep a named prepared statement across transactions, and the statement would
-- otherwise be planned on every request. STABLE, as claim_changes_after() is: one snapshot.
CREATE OR REPLACE FUNCTION claim_changes_since(since pg_snapshot, max_changes integer)
RETURNS TABLE (snapshot text, at_ms float8, version text, campaign_key integer, public_id text,
               claimed_at_us float8, usd_micros float8, sign integer, claimant text)
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: the snapshot differs on every call, and the plan does not depend on it.
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY SELECT * FROM claim_changes_after(since, max_changes);
END;
$$;
