-- campaign_set_version grows whenever the set of campaigns or an attribute a list filter reads changes,
-- so a cached count stays valid exactly as long as the value is unchanged. Its `targets` grows with it:
-- whoever calls this may have changed which campaigns target which named contracts. The one change
-- that cannot, a campaign's derived flags flipping, bumps `value` alone (refresh_campaign_flags()).
CREATE OR REPLACE FUNCTION bump_campaign_set_version() RETURNS void LANGUAGE sql AS $$
  UPDATE campaign_set_version SET value = value + 1, targets = targets + 1 WHERE id = 1;
$$;
