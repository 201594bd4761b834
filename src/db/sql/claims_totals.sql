-- Claims, second (the order: README.md here): the incentives' claim totals, and what the totals show.
-- Claims are the source of truth for what was paid (a raffle draw's amount and USD included; its row
-- is not counted as a claim). Then, for the campaigns whose incentives moved: their campaign_live rows
-- and trending entry versions, and their flags where an incentive crossed its claim limit or budget
-- (either way). The totals update is flagged (campaign_service.claims_writing) so that
-- incentives_documents(), whose WHEN clause leaves such updates out, does not find the same campaigns
-- again by joining the update's old and new rows.
--
-- A bulk load (refresh deferred) and a TRUNCATE leave this to recompute_incentive_totals() and
-- refresh_campaigns(), which the loader calls at its end.
--
-- The generic plan always: the update's arrays would otherwise have it planned again for every
-- statement, since a custom plan for one claim always looks cheaper than the generic plan's guess of
-- ten; that planning cost more than the rest of the trigger.
CREATE OR REPLACE FUNCTION claims_totals() RETURNS trigger LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  keys integer[];
  positions integer[];
  claim_counts bigint[];
  amounts numeric[];
  usds numeric[];
  changed integer[];
  crossed integer[];
BEGIN
  IF TG_OP = 'TRUNCATE' OR refresh_deferred() THEN
    RETURN NULL;
  END IF;
  -- What the statement adds to each incentive: an update adds its new rows and takes away its old
  -- ones in one update of each incentive (a second update of the same rows would write each incentive
  -- twice, the bulk of what revaluing a chunk of claims costs).
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.campaign_key), array_agg(n.incentive_position), array_agg(n.claim_count), array_agg(n.amount), array_agg(n.usd)
      INTO keys, positions, claim_counts, amounts, usds
      FROM (SELECT campaign_key, incentive_position, count(*) FILTER (WHERE NOT draw) AS claim_count, sum(amount) AS amount, sum(usd_value) AS usd
              FROM new_claims GROUP BY campaign_key, incentive_position) AS n;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.campaign_key), array_agg(o.incentive_position), array_agg(-o.claim_count), array_agg(-o.amount), array_agg(-o.usd)
      INTO keys, positions, claim_counts, amounts, usds
      FROM (SELECT campaign_key, incentive_position, count(*) FILTER (WHERE NOT draw) AS claim_count, sum(amount) AS amount, sum(usd_value) AS usd
              FROM old_claims GROUP BY campaign_key, incentive_position) AS o;
  ELSE
    SELECT array_agg(u.campaign_key), array_agg(u.incentive_position), array_agg(u.claim_count), array_agg(u.amount), array_agg(u.usd)
      INTO keys, positions, claim_counts, amounts, usds
      FROM (SELECT campaign_key, incentive_position, sum(claim_count) AS claim_count, sum(amount) AS amount, sum(usd) AS usd
              FROM (SELECT campaign_key, incentive_position, CASE WHEN draw THEN 0 ELSE 1 END AS claim_count, amount, usd_value AS usd FROM new_claims
                    UNION ALL
                    SELECT campaign_key, incentive_position, CASE WHEN draw THEN 0 ELSE -1 END, -amount, -usd_value FROM old_claims) AS change
             GROUP BY campaign_key, incentive_position) AS u;
  END IF;
  IF keys IS NULL THEN
    RETURN NULL;
  END IF;

  -- The update returns the campaigns whose incentives it changed, and those where an incentive's
  -- "spent" state (claim limit or budget reached) differs before and after it; a campaign crossed is
  -- refreshed, and refresh_campaign_flags() writes only flags that end up different.
  PERFORM set_config('campaign_service.claims_writing', 'on', true);
  WITH updated AS (
    UPDATE incentives AS i
       SET total_claims = i.total_claims + d.claim_count,
           total_amount_claimed = i.total_amount_claimed + d.amount,
           total_usd_claimed = i.total_usd_claimed + d.usd
      FROM unnest(keys, positions, claim_counts, amounts, usds) AS d(campaign_key, incentive_position, claim_count, amount, usd)
     WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position
    RETURNING i.campaign_key,
              (coalesce(i.total_claims >= i.claim_limit, false) OR coalesce(i.total_amount_claimed >= i.total_budget, false))
              IS DISTINCT FROM
              (coalesce(i.total_claims - d.claim_count >= i.claim_limit, false)
               OR coalesce(i.total_amount_claimed - d.amount >= i.total_budget, false)) AS crossed_limit)
  SELECT ARRAY(SELECT DISTINCT u.campaign_key FROM updated AS u),
         ARRAY(SELECT DISTINCT u.campaign_key FROM updated AS u WHERE u.crossed_limit)
    INTO changed, crossed;
  PERFORM set_config('campaign_service.claims_writing', 'off', true);

  IF cardinality(changed) > 0 THEN
    PERFORM refresh_campaign_live(changed);
    PERFORM bump_entry_versions(changed);
  END IF;
  IF cardinality(crossed) > 0 THEN
    PERFORM refresh_campaign_flags(crossed);
  END IF;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claims_2_totals_after_insert AFTER INSERT ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_totals();

CREATE OR REPLACE TRIGGER claims_2_totals_after_update AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_claims NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_totals();

CREATE OR REPLACE TRIGGER claims_2_totals_after_delete AFTER DELETE ON claims
  REFERENCING OLD TABLE AS old_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_totals();
