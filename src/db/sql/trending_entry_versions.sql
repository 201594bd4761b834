-- For each of campaigns `keys` (in that order): the version of everything its trending entry shows
-- except the asker's standing and the claim volumes, with `claimant`'s standing (claimant_standing()).
-- The API keeps entries it has built and builds one again only when its version changed: the
-- campaign's own version (entry_versions, new whenever the campaign, its allow list's type or its
-- incentives change, claim totals included) and the version of the rows entries share (tokens,
-- action templates, projects: entry_shared_version). Both come from one sequence, so a version is
-- never given twice. One index lookup per campaign: reading the transaction ID of every row an entry
-- is built from (eight tables) would cost most of what a profile costs here.
--
-- PL/pgSQL for its plan, kept per server connection (see trending_entries()).
CREATE OR REPLACE FUNCTION trending_entry_versions(keys integer[], claimant text)
RETURNS TABLE (key integer, version text, claimant_claimed boolean, claimant_listed boolean, claimant_member boolean,
               signature_incentive_id smallint, signature text, signature_referrer text)
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: the keys differ on every call, and the plan does not depend on them.
SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  shared text := (SELECT s.value::text FROM entry_shared_version AS s WHERE s.id = 1);
BEGIN
  RETURN QUERY
  SELECT v.campaign_key, v.version::text || ':' || shared,
         st.claimed, st.listed, st.member, st.signature_incentive_id, st.signature, st.signature_referrer
    FROM unnest(keys) WITH ORDINALITY AS page(key, ord)
    JOIN entry_versions AS v ON v.campaign_key = page.key
    LEFT JOIN claimant_standing(keys, claimant) AS st ON st.key = v.campaign_key
   ORDER BY page.ord;
END;
$$;
