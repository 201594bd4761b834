-- Claims, third (the order: README.md here): the claim change feed (claim_changes) that the readers
-- keeping claim volumes in memory poll (src/claim-volumes/), and that a campaign's history is brought
-- forward from (apply_claim_history()), and that tells the kept reward-kit profiles which claimants'
-- claims changed (claimant_changed_since()). +1 for a claim added, -1 for one removed,
-- both for an update that moves a claim between campaigns or instants, the difference (sign 0) for an
-- update of its value alone. A raffle draw is not a claim: it only adds its value (sign 0, the value
-- signed) and takes it away again, so volumes count its USD and not it. A bulk load (refresh
-- deferred) or a TRUNCATE records one reload marker (sign 0, no campaign) instead of a row per claim.
-- Then a notification on channel claim_changes (one per transaction: PostgreSQL folds equal ones),
-- so that an idle reader polls when something changed, and the feeds' pruning (prune_claim_changes()).
CREATE OR REPLACE FUNCTION claims_volume_feed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  recorded bigint;
BEGIN
  -- A statement that wrote no claim (an import's upsert of claims it already holds, equal), or
  -- changed nothing the feed follows, changes nothing a reader keeps: no reload marker, no
  -- notification. Told by what it recorded, except for a marker, which records one row whatever, and
  -- an update, whose statement is planned at every run (below): not for nothing.
  IF TG_OP = 'TRUNCATE' OR refresh_deferred() THEN
    IF TG_OP = 'DELETE' THEN
      IF NOT EXISTS (SELECT 1 FROM old_claims) THEN RETURN NULL; END IF;
    ELSIF TG_OP <> 'TRUNCATE' THEN
      IF NOT EXISTS (SELECT 1 FROM new_claims) THEN RETURN NULL; END IF;
    END IF;
    INSERT INTO claim_changes (sign) VALUES (0);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign, claimant)
    SELECT n.campaign_key, c.public_id, n.claimed_at, n.usd_value, CASE WHEN n.draw THEN 0 ELSE 1 END, n.claimant
      FROM new_claims AS n JOIN campaigns AS c ON c.key = n.campaign_key;
  ELSIF TG_OP = 'DELETE' THEN
    -- A claim deleted with its campaign (a cascade) no longer finds it: its public ID is not needed
    -- then (the reader knows every campaign whose claims it counted), so any text will do.
    INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign, claimant)
    SELECT o.campaign_key, coalesce(c.public_id, ''), o.claimed_at,
           CASE WHEN o.draw THEN -o.usd_value ELSE o.usd_value END, CASE WHEN o.draw THEN 0 ELSE -1 END, o.claimant
      FROM old_claims AS o LEFT JOIN campaigns AS c ON c.key = o.campaign_key;
  ELSE
    IF NOT EXISTS (SELECT 1 FROM new_claims) THEN RETURN NULL; END IF;
    -- A claim that moved (another campaign, instant or claimant) leaves where it was and enters where it is; a
    -- claim whose value alone changed is one change of that value (sign 0, the difference), so that
    -- a revaluation of thousands of claims sends the readers one row a claim, not two. A claim whose
    -- amount or incentive alone changed is a change of nothing (sign 0, USD 0) for the claim volumes,
    -- and for the campaign's history (apply_claim_history()) a change of its hour.
    -- Planned at every update (EXECUTE) for the sizes of its transition tables: a plan kept from the
    -- session's first update, made for one claim or none, joins the old and new rows pairwise, and a
    -- later update of a thousand claims through it takes seconds.
    EXECUTE $statement$
    INSERT INTO claim_changes (campaign_key, public_id, claimed_at, usd_value, sign, claimant)
    SELECT change.campaign_key, coalesce(c.public_id, ''), change.claimed_at, change.usd_value, change.sign, change.claimant
      FROM old_claims AS o
      JOIN new_claims AS n USING (id)
     CROSS JOIN LATERAL (VALUES (o.campaign_key, o.claimed_at, CASE WHEN o.draw THEN -o.usd_value ELSE o.usd_value END,
                                 CASE WHEN o.draw THEN 0 ELSE -1 END, o.claimant, true),
                                (n.campaign_key, n.claimed_at, n.usd_value, CASE WHEN n.draw THEN 0 ELSE 1 END, n.claimant, true),
                                (n.campaign_key, n.claimed_at, n.usd_value - o.usd_value, 0, n.claimant, false))
                        AS change(campaign_key, claimed_at, usd_value, sign, claimant, moved)
      LEFT JOIN campaigns AS c ON c.key = change.campaign_key
     WHERE (o.campaign_key, o.claimed_at, o.usd_value, o.draw, o.claimant, o.amount, o.incentive_position)
           IS DISTINCT FROM (n.campaign_key, n.claimed_at, n.usd_value, n.draw, n.claimant, n.amount, n.incentive_position)
       AND change.moved = ((o.campaign_key, o.claimed_at, o.draw, o.claimant) <> (n.campaign_key, n.claimed_at, n.draw, n.claimant))
    $statement$;
  END IF;
  GET DIAGNOSTICS recorded = ROW_COUNT;
  IF recorded = 0 THEN
    RETURN NULL;
  END IF;
  PERFORM prune_claim_changes();
  PERFORM pg_notify('claim_changes', '');
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claims_3_volume_feed_after_insert AFTER INSERT ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_volume_feed();

CREATE OR REPLACE TRIGGER claims_3_volume_feed_after_update AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_claims NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_volume_feed();

CREATE OR REPLACE TRIGGER claims_3_volume_feed_after_delete AFTER DELETE ON claims
  REFERENCING OLD TABLE AS old_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_volume_feed();

CREATE OR REPLACE TRIGGER claims_3_volume_feed_after_truncate AFTER TRUNCATE ON claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_volume_feed();
