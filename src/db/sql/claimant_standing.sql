-- `claimant`'s standing in each of campaigns `keys` (none without a claimant): whether it claimed,
-- whether an allow or deny list lists it, whether it belongs to the campaign's off-chain access list,
-- and its oldest unused claim signature. What a trending entry says about the asker, read by
-- trending_entries() with the rest of an entry and by trending_entry_versions() on its own.
--
-- PL/pgSQL for its plan, kept per server connection (see trending_entries()).
CREATE OR REPLACE FUNCTION claimant_standing(keys integer[], claimant text)
RETURNS TABLE (key integer, claimed boolean, listed boolean, member boolean,
               signature_incentive_id smallint, signature text, signature_referrer text)
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: with a constant claimant a custom plan looks cheaper on paper.
SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT c.key,
         EXISTS (SELECT 1 FROM claims AS w WHERE w.claimant = claimant_standing.claimant AND w.campaign_key = c.key),
         EXISTS (SELECT 1 FROM allow_list_addresses AS x
                  WHERE x.allow_list_id = c.allow_list_id AND x.address = claimant_standing.claimant),
         EXISTS (SELECT 1 FROM allow_lists AS a
                   JOIN access_list_members AS m ON m.access_list_id = a.access_list_id
                  WHERE a.id = c.allow_list_id AND m.address = claimant_standing.claimant),
         s.incentive_id, s.signature, s.referrer
    FROM campaigns AS c
    LEFT JOIN LATERAL (
      SELECT g.incentive_id, g.signature, g.referrer FROM claim_signatures AS g
       WHERE g.claimant = claimant_standing.claimant AND g.campaign_key = c.key AND NOT g.used
       ORDER BY g.id LIMIT 1
    ) AS s ON true
   WHERE claimant_standing.claimant IS NOT NULL AND c.key = ANY(keys);
END;
$$;
