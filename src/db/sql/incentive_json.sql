-- One incentive as the API shows it: `type`, the variant's stored fields, then the live fields.
CREATE OR REPLACE FUNCTION incentive_json(i incentives, t tokens) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT '{' || concat_ws(', ',
    '"type": ' || json_text(i.type),
    nullif(substr(i.params::text, 2, length(i.params::text) - 2), ''),
    CASE WHEN incentive_has_live_fields(i.type) THEN
      '"claimedAmount": "' || i.total_amount_claimed || '", "totalClaims": "' || i.total_claims
      || '", "totalAmountClaimed": "' || i.total_amount_claimed
      || '", "remainingBalance": "' || greatest(coalesce(i.total_budget, 0) - i.total_amount_claimed, 0)
      || '", "metadata": ' || token_metadata_json(t)
    END) || '}';
$$;
