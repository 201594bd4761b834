-- A claim as the event streams report it (GET /events, ClaimEvent in the OpenAPI document): written by
-- claims_events() for each claim written or removed. `campaign_id` comes from the caller, which
-- joins the campaign (a claim deleted with its campaign no longer finds it: NULL then).
CREATE OR REPLACE FUNCTION claim_event_data(claim claims, campaign_id text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'campaignId', campaign_id,
    'chainId', claim.chain_id,
    'claimant', claim.claimant,
    'incentivePosition', claim.incentive_position,
    'amount', claim.amount::text,
    'usdValue', claim.usd_value,
    'valuePending', claim.value_pending,
    'txHash', claim.tx_hash,
    'blockNumber', claim.block_number,
    'logIndex', claim.log_index,
    'claimedAt', iso_utc(claim.claimed_at));
$$;
