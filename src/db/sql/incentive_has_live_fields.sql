-- The variants that carry claim totals, remaining balance and token metadata next to their own fields.
CREATE OR REPLACE FUNCTION incentive_has_live_fields(incentive_type text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT incentive_type IN ('ERC20Incentive', 'ERC20VariableIncentive', 'ERC20VariableCriteriaIncentive',
                            'ERC20VariableCriteriaIncentiveV2', 'ERC20PeggedIncentive',
                            'ERC20PeggedVariableCriteriaIncentive', 'ERC20PeggedVariableCriteriaIncentiveV2');
$$;
