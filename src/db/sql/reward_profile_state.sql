-- What a kept reward-kit profile of `claimant` listing campaigns `keys` is checked against: while
-- this text is unchanged, so are the profile's lists, standings and totals (and the clock has not
-- crossed a campaign's start or end: the API checks that itself). Its parts:
--   - the claimant's version (claimant_versions): its claims, signatures, allow-list and access-list
--     rows;
--   - campaign_set_version: a campaign added, removed, or with a flag or allow list a list reads
--     changed, which may bring an unlisted campaign into a list; also any bulk load or TRUNCATE;
--   - entry_shared_version and the newest version of the listed campaigns' entries with their count:
--     versions come from one sequence and are never given twice, so a changed listed campaign moves
--     the newest, and a deleted one the count.
-- reward_profile() returns it with the lists it read, from the same snapshot.
--
-- PL/pgSQL for its plans, kept per server connection; STABLE, so all of it reads the caller's snapshot.
CREATE OR REPLACE FUNCTION reward_profile_state(claimant text, keys integer[]) RETURNS text LANGUAGE plpgsql STABLE
  SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN concat_ws(':',
    coalesce((SELECT v.version FROM claimant_versions AS v WHERE v.claimant = reward_profile_state.claimant), 0),
    (SELECT s.value FROM campaign_set_version AS s WHERE s.id = 1),
    (SELECT s.value FROM entry_shared_version AS s WHERE s.id = 1),
    (SELECT coalesce(max(e.version), 0) || '/' || count(*) FROM entry_versions AS e WHERE e.campaign_key = ANY(keys)));
END
$$;
