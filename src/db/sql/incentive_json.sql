-- One incentive as the API shows it: `type`, the variant's stored fields, then, for the variants
-- that have them, the live fields and the token. The live fields change with every claim, so the
-- stored text holds a placeholder (the character U+0001, which JSON text escapes and so never
-- contains) that readers replace with incentive_live_json() from campaign_live. An ERC20Incentive's
-- `limit` is the claims it has left, so it is a live field too (its stored `limit` is the chain's limit()).
CREATE OR REPLACE FUNCTION incentive_json(i incentives, t tokens) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT '{' || concat_ws(',',
    '"type":' || json_text(i.type),
    -- The params' fields without their braces: right() drops the first character, left() the last.
    nullif(left(right(json_compact(CASE WHEN i.type = 'ERC20Incentive' THEN i.params - 'limit' ELSE i.params END), -1), -1), ''),
    CASE WHEN incentive_has_live_fields(i.type) THEN chr(1) || ',"metadata":' || token_metadata_json(t) END) || '}';
$$;
