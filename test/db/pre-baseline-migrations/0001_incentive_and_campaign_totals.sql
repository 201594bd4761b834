-- Custom SQL migration file, put your code below! --
-- drizzle-kit cannot express triggers, so this file was created with `drizzle-kit generate --custom`.
-- Claims are the source of truth for what was paid; the totals on incentives and the
-- campaign's has_budget_left flag follow them here, inside the writing transaction, whoever writes.
-- Statement-level triggers with transition tables keep bulk loads to one UPDATE per statement.

CREATE FUNCTION claims_sync_incentive_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE incentives AS i
       SET total_claims = i.total_claims + d.claim_count,
           total_amount_claimed = i.total_amount_claimed + d.amount
      FROM (SELECT campaign_key, incentive_position, count(*) AS claim_count, sum(amount) AS amount
              FROM new_claims GROUP BY campaign_key, incentive_position) AS d
     WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE incentives AS i
       SET total_claims = i.total_claims - d.claim_count,
           total_amount_claimed = i.total_amount_claimed - d.amount
      FROM (SELECT campaign_key, incentive_position, count(*) AS claim_count, sum(amount) AS amount
              FROM old_claims GROUP BY campaign_key, incentive_position) AS d
     WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER claims_totals_after_insert AFTER INSERT ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_sync_incentive_totals();
--> statement-breakpoint
CREATE TRIGGER claims_totals_after_update AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_claims NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_sync_incentive_totals();
--> statement-breakpoint
CREATE TRIGGER claims_totals_after_delete AFTER DELETE ON claims
  REFERENCING OLD TABLE AS old_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_sync_incentive_totals();
--> statement-breakpoint
-- An incentive is exhausted when it reached its claim limit or paid out its whole budget;
-- a campaign has budget left while at least one of its incentives is not exhausted.
CREATE FUNCTION incentives_sync_campaign_budget_left() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE campaigns AS c
     SET has_budget_left = s.has_budget_left
    FROM (SELECT k.campaign_key,
                 EXISTS (SELECT 1 FROM incentives AS i
                          WHERE i.campaign_key = k.campaign_key
                            AND NOT coalesce(i.total_claims >= i.claim_limit, false)
                            AND NOT coalesce(i.total_amount_claimed >= i.total_budget, false)) AS has_budget_left
            FROM (SELECT DISTINCT campaign_key FROM changed_incentives) AS k) AS s
   WHERE c.key = s.campaign_key AND c.has_budget_left IS DISTINCT FROM s.has_budget_left;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER incentives_budget_after_insert AFTER INSERT ON incentives
  REFERENCING NEW TABLE AS changed_incentives
  FOR EACH STATEMENT EXECUTE FUNCTION incentives_sync_campaign_budget_left();
--> statement-breakpoint
CREATE TRIGGER incentives_budget_after_update AFTER UPDATE ON incentives
  REFERENCING NEW TABLE AS changed_incentives
  FOR EACH STATEMENT EXECUTE FUNCTION incentives_sync_campaign_budget_left();
--> statement-breakpoint
CREATE TRIGGER incentives_budget_after_delete AFTER DELETE ON incentives
  REFERENCING OLD TABLE AS changed_incentives
  FOR EACH STATEMENT EXECUTE FUNCTION incentives_sync_campaign_budget_left();
