-- Gives the trending entries of campaigns `keys` new versions (entry_versions): something an entry
-- shows changed. A campaign without a row yet (a new one) gets one.
CREATE OR REPLACE FUNCTION bump_entry_versions(keys integer[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO entry_versions AS v (campaign_key, version)
  SELECT c.key, nextval('entry_version_seq') FROM campaigns AS c WHERE c.key IN (SELECT unnest(keys))
  ON CONFLICT (campaign_key) DO UPDATE SET version = excluded.version;
$$;
