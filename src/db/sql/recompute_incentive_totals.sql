-- Every incentive's claim totals from the claims table, written only where they differ. A raffle
-- draw's amount and USD count; its row is not a claim.
CREATE OR REPLACE FUNCTION recompute_incentive_totals() RETURNS void LANGUAGE sql AS $$
  UPDATE incentives AS i
     SET total_claims = t.claim_count, total_amount_claimed = t.amount, total_usd_claimed = t.usd
    FROM (SELECT base.campaign_key, base.position,
                 coalesce(d.claim_count, 0) AS claim_count, coalesce(d.amount, 0) AS amount, coalesce(d.usd, 0) AS usd
            FROM incentives AS base
            LEFT JOIN (SELECT campaign_key, incentive_position, count(*) FILTER (WHERE NOT draw) AS claim_count, sum(amount) AS amount,
                              sum(usd_value) AS usd
                         FROM claims GROUP BY campaign_key, incentive_position) AS d
              ON d.campaign_key = base.campaign_key AND d.incentive_position = base.position) AS t
   WHERE i.campaign_key = t.campaign_key AND i.position = t.position
     AND (i.total_claims, i.total_amount_claimed, i.total_usd_claimed) IS DISTINCT FROM (t.claim_count, t.amount, t.usd);
$$;
