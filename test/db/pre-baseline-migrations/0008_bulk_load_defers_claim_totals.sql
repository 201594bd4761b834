-- Custom SQL migration file, put your code below! --
-- A bulk load (the data generator) defers the claim totals like the documents: its claims go
-- straight into the table, and one set-based pass computes every incentive's totals at the end,
-- instead of a trigger run per chunk or a staging table the size of the claims.
CREATE OR REPLACE FUNCTION claims_sync_incentive_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE incentives AS i
       SET total_claims = i.total_claims + d.claim_count,
           total_amount_claimed = i.total_amount_claimed + d.amount,
           total_usd_claimed = i.total_usd_claimed + d.usd
      FROM (SELECT campaign_key, incentive_position, count(*) AS claim_count, sum(amount) AS amount, sum(usd_value) AS usd
              FROM new_claims GROUP BY campaign_key, incentive_position) AS d
     WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE incentives AS i
       SET total_claims = i.total_claims - d.claim_count,
           total_amount_claimed = i.total_amount_claimed - d.amount,
           total_usd_claimed = i.total_usd_claimed - d.usd
      FROM (SELECT campaign_key, incentive_position, count(*) AS claim_count, sum(amount) AS amount, sum(usd_value) AS usd
              FROM old_claims GROUP BY campaign_key, incentive_position) AS d
     WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Every incentive's claim totals from the claims table, written only where they differ.
CREATE FUNCTION recompute_incentive_totals() RETURNS void LANGUAGE sql AS $$
  UPDATE incentives AS i
     SET total_claims = t.claim_count, total_amount_claimed = t.amount, total_usd_claimed = t.usd
    FROM (SELECT base.campaign_key, base.position,
                 coalesce(d.claim_count, 0) AS claim_count, coalesce(d.amount, 0) AS amount, coalesce(d.usd, 0) AS usd
            FROM incentives AS base
            LEFT JOIN (SELECT campaign_key, incentive_position, count(*) AS claim_count, sum(amount) AS amount,
                              sum(usd_value) AS usd
                         FROM claims GROUP BY campaign_key, incentive_position) AS d
              ON d.campaign_key = base.campaign_key AND d.incentive_position = base.position) AS t
   WHERE i.campaign_key = t.campaign_key AND i.position = t.position
     AND (i.total_claims, i.total_amount_claimed, i.total_usd_claimed) IS DISTINCT FROM (t.claim_count, t.amount, t.usd);
$$;
