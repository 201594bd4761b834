-- campaign_set_version grows whenever the set of campaigns or an attribute a list filter reads changes,
-- so a cached count stays valid exactly as long as the value is unchanged.
CREATE OR REPLACE FUNCTION bump_campaign_set_version() RETURNS void LANGUAGE sql AS $$
  UPDATE campaign_set_version SET value = value + 1 WHERE id = 1;
$$;
