-- Everything a write to claims keeps in step, in the writing transaction, whoever writes: one
-- statement-level trigger per event (a single-claim transaction, what an indexer sends hundreds of
-- times a second, runs one trigger function instead of three and checks the feeds' pruning once).
--
-- 1. The claim change feed (claim_changes) that the readers keeping volumes in memory poll
--    (src/claim-volumes/claim-windows.ts): +1 for a claim added, -1 for one removed, both for an update
--    that moves a claim between campaigns or instants, the difference (sign 0) for an update of its
--    value alone. A raffle draw (`draw`) is not a claim: it only adds its value (sign 0, the value
--    signed) and takes it away again, so volumes count its USD and not it. A bulk load (refresh
--    deferred) or a TRUNCATE records one reload marker (sign 0, no campaign) instead of a row per claim.
-- 2. The incentives' claim totals: claims are the source of truth for what was paid (a draw's amount
--    and USD included; its row is not counted as a claim). Then what the totals show: the campaigns'
--    campaign_live rows and trending entry versions, and their flags where an incentive crossed its
--    claim limit or budget (either way). This trigger does that itself for the campaigns it knows,
--    and tells incentives_after_write() (campaign_service.claims_writing)
--    that the totals update is its own: that trigger would otherwise find the same campaigns again by
--    joining the update's old and new rows.
-- 3. The claimant feed (claimant_changes) for the API's kept reward-kit profiles
--    (claimant_changed_since()): only inserts, so that writers of one claimant never wait on each other.
-- 4. A notification on channel claim_changes (one per transaction: PostgreSQL folds equal ones), so
--    that an idle reader polls the feed when something changed instead of every second.
-- 5. The events the API streams (GET /events): a claim (a draw: draw.*) written or removed, each
--    campaign whose totals changed, or, for a bulk load or a TRUNCATE, one event telling clients to
--    refetch; ordered at commit (record_event_transaction()).
--
-- A bulk load defers 2 and 3 (refresh_deferred()): it calls recompute_incentive_totals() and
-- refresh_campaigns() at its end and bumps campaign_set_version, against which kept profiles are
-- checked too; so does a TRUNCATE, which cannot say whom it touched.
CREATE OR REPLACE FUNCTION claims_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  deferred boolean := refresh_deferred();
  changed integer[] := '{}';
  crossed integer[] := '{}';
  touched text[] := '{}';
  mismatched bigint;
BEGIN
  -- A statement that wrote no claim (an import's upsert of claims it already holds, equal) changes
  -- nothing anyone keeps or is told: no event, no reload marker, no notification. Statement triggers
  -- run for it all the same, an INSERT ... ON CONFLICT DO UPDATE both the insert's and the update's.
  IF TG_OP = 'DELETE' THEN
    IF NOT EXISTS (SELECT 1 FROM old_claims) THEN RETURN NULL; END IF;
  ELSIF TG_OP <> 'TRUNCATE' THEN
    IF NOT EXISTS (SELECT 1 FROM new_claims) THEN RETURN NULL; END IF;
  END IF;

  -- A claim's chain is its campaign's: the chain is part of the claim's natural key. Checked here, in
  -- one statement over the written claims, not by a foreign key to campaigns (key, chain_id): that
  -- key's check locked the campaign's row for every claim, a WAL record and a dirtied campaigns page
  -- each time (about an eighth of what a claim cost PostgreSQL; bench/README.md, "Live writes").
  -- That the campaign exists, and that its claims go when it goes, claims_incentive_fk keeps; that
  -- a campaign's chain never changes afterwards, campaign_chain_fixed().
  --
  -- Counted, not tested with EXISTS: under EXISTS the planner picks the plan that starts fastest, a
  -- nested loop that compares every written claim with every campaign (a materialized seq scan while
  -- a bulk load has the indexes set aside: 1,000,000 claims into 100,000 campaigns took hours). A
  -- count is planned for its whole cost. PL/pgSQL keeps the first plan of each statement for the
  -- session, made for the size of the transition table then, so the same count is written twice:
  -- a block's few claims keep a plan of primary-key lookups, a batch gets one made for a batch (a
  -- hash join once the batch is large against the campaigns). With one statement, a session's single
  -- claims after a large batch scanned every campaign each. Up to ten claims, primary-key lookups are
  -- the planner's choice with more than about 600 campaigns, and below that a scan costs nothing.
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    IF (SELECT count(*) FROM new_claims) <= 10 THEN
      SELECT count(*) INTO mismatched FROM new_claims AS n LEFT JOIN campaigns AS c ON c.key = n.campaign_key
       WHERE c.chain_id IS DISTINCT FROM n.chain_id;
    ELSE
      SELECT count(*) INTO mismatched FROM new_claims AS n LEFT JOIN campaigns AS c ON c.key = n.campaign_key
       WHERE c.chain_id IS DISTINCT FROM n.chain_id;
    END IF;
    IF mismatched > 0 THEN
      RAISE EXCEPTION 'a claim''s chain_id must be its campaign''s' USING ERRCODE = 'foreign_key_violation';
    END IF;
  END IF;

  IF TG_OP = 'TRUNCATE' OR deferred THEN
    INSERT INTO claim_changes (sign) VALUES (0);
    INSERT INTO events (type, data) VALUES ('refetch', jsonb_build_object('reason', 'claims were rewritten in bulk'));
    PERFORM record_event_transaction();
    IF TG_OP = 'TRUNCATE' THEN
      PERFORM bump_campaign_set_version();
    END IF;
    PERFORM prune_claim_changes();
    PERFORM pg_notify('claim_changes', '');
    RETURN NULL;
  END IF;

  IF TG_OP = 'INSERT' THEN
    INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign)
    SELECT n.campaign_key, c.public_id, n.claimed_at, n.usd_value, CASE WHEN n.draw THEN 0 ELSE 1 END
      FROM new_claims AS n JOIN campaigns AS c ON c.key = n.campaign_key;
    INSERT INTO events (type, chain_id, campaign_id, claimant, data)
    SELECT CASE WHEN n.draw THEN 'draw.written' ELSE 'claim.written' END, n.chain_id, c.public_id, n.claimant, claim_event_data(n, c.public_id)
      FROM new_claims AS n JOIN campaigns AS c ON c.key = n.campaign_key
     ORDER BY n.id;
  ELSIF TG_OP = 'DELETE' THEN
    -- A claim deleted with its campaign (a cascade) no longer finds it: its public ID is not needed
    -- then (the reader knows every campaign whose claims it counted), so any text will do.
    INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign)
    SELECT o.campaign_key, coalesce(c.public_id, ''), o.claimed_at,
           CASE WHEN o.draw THEN -o.usd_value ELSE o.usd_value END, CASE WHEN o.draw THEN 0 ELSE -1 END
      FROM old_claims AS o LEFT JOIN campaigns AS c ON c.key = o.campaign_key;
    INSERT INTO events (type, chain_id, campaign_id, claimant, data)
    SELECT CASE WHEN o.draw THEN 'draw.removed' ELSE 'claim.removed' END, o.chain_id, c.public_id, o.claimant, claim_event_data(o, c.public_id)
      FROM old_claims AS o LEFT JOIN campaigns AS c ON c.key = o.campaign_key
     ORDER BY o.id;
  ELSE
    -- A claim that moved (another campaign or instant) leaves where it was and enters where it is; a
    -- claim whose value alone changed is one change of that value (sign 0, the difference), so that
    -- a revaluation of thousands of claims sends the readers one row a claim, not two.
    INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign)
    SELECT change.campaign_key, coalesce(c.public_id, ''), change.claimed_at, change.usd_value, change.sign
      FROM old_claims AS o
      JOIN new_claims AS n USING (id)
     CROSS JOIN LATERAL (VALUES (o.campaign_key, o.claimed_at, CASE WHEN o.draw THEN -o.usd_value ELSE o.usd_value END,
                                 CASE WHEN o.draw THEN 0 ELSE -1 END, true),
                                (n.campaign_key, n.claimed_at, n.usd_value, CASE WHEN n.draw THEN 0 ELSE 1 END, true),
                                (n.campaign_key, n.claimed_at, n.usd_value - o.usd_value, 0, false))
                        AS change(campaign_key, claimed_at, usd_value, sign, moved)
      LEFT JOIN campaigns AS c ON c.key = change.campaign_key
     WHERE (o.campaign_key, o.claimed_at, o.usd_value, o.draw) IS DISTINCT FROM (n.campaign_key, n.claimed_at, n.usd_value, n.draw)
       AND change.moved = ((o.campaign_key, o.claimed_at, o.draw) <> (n.campaign_key, n.claimed_at, n.draw));
    -- A claim rewritten (its value found when a price arrived, a record imported again) is written
    -- again, as its clients see it; an update that changes nothing they see sends nothing.
    INSERT INTO events (type, chain_id, campaign_id, claimant, data)
    SELECT CASE WHEN n.draw THEN 'draw.written' ELSE 'claim.written' END, n.chain_id, c.public_id, n.claimant, claim_event_data(n, c.public_id)
      FROM old_claims AS o
      JOIN new_claims AS n USING (id)
      LEFT JOIN campaigns AS c ON c.key = n.campaign_key
     WHERE claim_event_data(o, NULL) IS DISTINCT FROM claim_event_data(n, NULL) OR o.campaign_key <> n.campaign_key OR o.draw <> n.draw
     ORDER BY n.id;
  END IF;
  PERFORM record_event_transaction();

  PERFORM set_config('campaign_service.claims_writing', 'on', true);
  -- Each update returns the campaigns whose incentives it changed, and those where an incentive's
  -- "spent" state (claim limit or budget reached) differs before and after it; a campaign crossed is
  -- refreshed, and refresh_campaign_flags() writes only flags that end up different. An update of
  -- claims adds the new rows and takes away the old ones in one update of each incentive: a second
  -- update of the same rows would write each incentive twice and check its campaign's key again (the
  -- rows are the transaction's own by then), the bulk of what revaluing a chunk of claims costs.
  IF TG_OP = 'UPDATE' THEN
    WITH updated AS (
      UPDATE incentives AS i
         SET total_claims = i.total_claims + d.claim_count,
             total_amount_claimed = i.total_amount_claimed + d.amount,
             total_usd_claimed = i.total_usd_claimed + d.usd
        FROM (SELECT change.campaign_key, change.incentive_position,
                     sum(change.claim_count) AS claim_count, sum(change.amount) AS amount, sum(change.usd) AS usd
                FROM (SELECT n.campaign_key, n.incentive_position, CASE WHEN n.draw THEN 0 ELSE 1 END AS claim_count, n.amount, n.usd_value AS usd
                        FROM new_claims AS n
                      UNION ALL
                      SELECT o.campaign_key, o.incentive_position, CASE WHEN o.draw THEN 0 ELSE -1 END, -o.amount, -o.usd_value FROM old_claims AS o) AS change
               GROUP BY change.campaign_key, change.incentive_position) AS d
       WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position
      RETURNING i.campaign_key,
                (coalesce(i.total_claims >= i.claim_limit, false) OR coalesce(i.total_amount_claimed >= i.total_budget, false))
                IS DISTINCT FROM
                (coalesce(i.total_claims - d.claim_count >= i.claim_limit, false)
                 OR coalesce(i.total_amount_claimed - d.amount >= i.total_budget, false)) AS crossed_limit)
    SELECT coalesce(array_agg(campaign_key), '{}'),
           coalesce(array_agg(campaign_key) FILTER (WHERE updated.crossed_limit), '{}')
      INTO changed, crossed
      FROM updated;
  ELSIF TG_OP = 'INSERT' THEN
    WITH updated AS (
      UPDATE incentives AS i
         SET total_claims = i.total_claims + d.claim_count,
             total_amount_claimed = i.total_amount_claimed + d.amount,
             total_usd_claimed = i.total_usd_claimed + d.usd
        FROM (SELECT campaign_key, incentive_position, count(*) FILTER (WHERE NOT draw) AS claim_count, sum(amount) AS amount, sum(usd_value) AS usd
                FROM new_claims GROUP BY campaign_key, incentive_position) AS d
       WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position
      RETURNING i.campaign_key,
                (coalesce(i.total_claims >= i.claim_limit, false) OR coalesce(i.total_amount_claimed >= i.total_budget, false))
                IS DISTINCT FROM
                (coalesce(i.total_claims - d.claim_count >= i.claim_limit, false)
                 OR coalesce(i.total_amount_claimed - d.amount >= i.total_budget, false)) AS crossed_limit)
    SELECT changed || coalesce(array_agg(campaign_key), '{}'),
           crossed || coalesce(array_agg(campaign_key) FILTER (WHERE updated.crossed_limit), '{}')
      INTO changed, crossed
      FROM updated;
  ELSIF TG_OP = 'DELETE' THEN
    WITH updated AS (
      UPDATE incentives AS i
         SET total_claims = i.total_claims - d.claim_count,
             total_amount_claimed = i.total_amount_claimed - d.amount,
             total_usd_claimed = i.total_usd_claimed - d.usd
        FROM (SELECT campaign_key, incentive_position, count(*) FILTER (WHERE NOT draw) AS claim_count, sum(amount) AS amount, sum(usd_value) AS usd
                FROM old_claims GROUP BY campaign_key, incentive_position) AS d
       WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position
      RETURNING i.campaign_key,
                (coalesce(i.total_claims >= i.claim_limit, false) OR coalesce(i.total_amount_claimed >= i.total_budget, false))
                IS DISTINCT FROM
                (coalesce(i.total_claims + d.claim_count >= i.claim_limit, false)
                 OR coalesce(i.total_amount_claimed + d.amount >= i.total_budget, false)) AS crossed_limit)
    SELECT changed || coalesce(array_agg(campaign_key), '{}'),
           crossed || coalesce(array_agg(campaign_key) FILTER (WHERE updated.crossed_limit), '{}')
      INTO changed, crossed
      FROM updated;
  END IF;
  PERFORM set_config('campaign_service.claims_writing', 'off', true);
  IF cardinality(changed) > 0 THEN
    changed := ARRAY(SELECT DISTINCT k FROM unnest(changed) AS k);
    PERFORM refresh_campaign_live(changed);
    PERFORM bump_entry_versions(changed);
  END IF;
  IF cardinality(crossed) > 0 THEN
    PERFORM refresh_campaign_flags(ARRAY(SELECT DISTINCT k FROM unnest(crossed) AS k));
  END IF;
  IF cardinality(changed) > 0 THEN
    PERFORM record_campaign_events('campaign.changed', changed);
  END IF;

  IF TG_OP <> 'DELETE' THEN touched := touched || ARRAY(SELECT n.claimant FROM new_claims AS n); END IF;
  IF TG_OP <> 'INSERT' THEN touched := touched || ARRAY(SELECT o.claimant FROM old_claims AS o); END IF;
  IF cardinality(touched) > 0 THEN
    INSERT INTO claimant_changes (claimant) SELECT DISTINCT t.claimant FROM unnest(touched) AS t(claimant);
  END IF;

  PERFORM prune_claim_changes();
  PERFORM pg_notify('claim_changes', '');
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claims_after_insert AFTER INSERT ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_after_write();

CREATE OR REPLACE TRIGGER claims_after_update AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_claims NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_after_write();

CREATE OR REPLACE TRIGGER claims_after_delete AFTER DELETE ON claims
  REFERENCING OLD TABLE AS old_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_after_write();

CREATE OR REPLACE TRIGGER claims_after_truncate AFTER TRUNCATE ON claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_after_write();
