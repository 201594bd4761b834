-- What a kept reward-kit profile listing campaigns `keys` is checked against, besides the
-- claimant's own writes (claimant_changed_since()) and the clock (the API checks that itself):
-- while this text is unchanged, so are the lists' campaigns and what may enter them. Its parts:
--   - campaign_set_version: a campaign added, removed, or with a flag or allow list a list reads
--     changed, which may bring an unlisted campaign into a list; also any bulk load or TRUNCATE;
--   - entry_shared_version and the newest version of the listed campaigns' entries with their count:
--     versions come from one sequence and are never given twice, so a changed listed campaign moves
--     the newest, and a deleted one the count.
-- reward_profile() returns it with the lists it read, from the same snapshot.
--
-- PL/pgSQL for its plans, kept per server connection; STABLE, so all of it reads the caller's snapshot.
CREATE OR REPLACE FUNCTION reward_profile_state(keys integer[]) RETURNS text LANGUAGE plpgsql STABLE
  SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN concat_ws(':',
    (SELECT s.value FROM campaign_set_version AS s WHERE s.id = 1),
    (SELECT s.value FROM entry_shared_version AS s WHERE s.id = 1),
    (SELECT coalesce(max(e.version), 0) || '/' || count(*) FROM entry_versions AS e WHERE e.campaign_key = ANY(keys)));
END
$$;
