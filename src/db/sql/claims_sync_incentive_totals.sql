-- Claims are the source of truth for what was paid: the totals on incentives follow them inside the
-- writing transaction, whoever writes. Statement-level with transition tables, so a multi-row write
-- costs one UPDATE per statement. A bulk load defers them (refresh_deferred()) and calls
-- recompute_incentive_totals() once at its end instead.
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

CREATE OR REPLACE TRIGGER claims_totals_after_insert AFTER INSERT ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_sync_incentive_totals();

CREATE OR REPLACE TRIGGER claims_totals_after_update AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_claims NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_sync_incentive_totals();

CREATE OR REPLACE TRIGGER claims_totals_after_delete AFTER DELETE ON claims
  REFERENCING OLD TABLE AS old_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_sync_incentive_totals();
