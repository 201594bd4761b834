-- For each of campaigns `keys` (in that order): the version of everything its trending entry shows
-- except the asker's standing and the claim volumes, with `claimant`'s standing (claimant_standing()).
-- The API keeps entries it has built and builds one again only when its version changed: the
-- version is the transaction ID that wrote (xmin) each row trending_entries() reads for the entry,
-- so any insert, update or delete of one of them (a claim updates its incentive's totals) changes it.
--
-- The incentives' part is read for all of `keys` at once and joined by campaign: as a subquery per
-- campaign it cost about 15 us a campaign (an index scan, a tokens lookup and a sort each), two
-- thirds of the whole for a profile's 157 campaigns (3.6 -> 1.5 ms).
--
-- PL/pgSQL for its plan, kept per server connection (see trending_entries()).
CREATE OR REPLACE FUNCTION trending_entry_versions(keys integer[], claimant text)
RETURNS TABLE (key integer, version text, claimant_claimed boolean, claimant_listed boolean, claimant_member boolean,
               signature_incentive_id smallint, signature text, signature_referrer text)
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: the keys differ on every call, and the plan does not depend on them.
SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH incentive_versions AS MATERIALIZED (
    SELECT i.campaign_key, string_agg(concat_ws('/', i.xmin, o.xmin), ',' ORDER BY i.position) AS version
      FROM incentives AS i
      JOIN campaigns AS ic ON ic.key = i.campaign_key
      LEFT JOIN tokens AS o ON o.chain_id = ic.chain_id AND o.address = i.asset_address
     WHERE i.campaign_key = ANY(keys)
     GROUP BY i.campaign_key
  )
  SELECT c.key,
         concat_ws(':', c.xmin, t.xmin, p.xmin, a.xmin, k.xmin, iv.version),
         st.claimed, st.listed, st.member, st.signature_incentive_id, st.signature, st.signature_referrer
    FROM unnest(keys) WITH ORDINALITY AS page(key, ord)
    JOIN campaigns AS c ON c.key = page.key
    LEFT JOIN action_templates AS t ON t.id = c.action_template_id
    LEFT JOIN projects AS p ON p.id = t.project_id
    LEFT JOIN allow_lists AS a ON a.id = c.allow_list_id
    LEFT JOIN tokens AS k ON k.chain_id = c.chain_id AND k.address = c.action_token_address
    LEFT JOIN incentive_versions AS iv ON iv.campaign_key = c.key
    LEFT JOIN claimant_standing(keys, claimant) AS st ON st.key = c.key
   ORDER BY page.ord;
END;
$$;
