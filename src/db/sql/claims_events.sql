-- Claims, last (the order: README.md here): the events the API streams (GET /events), ordered at
-- commit (order_event_commit()). A claim (a raffle draw: draw.*) written or removed, then each
-- campaign it touched (campaign.changed, with the state the totals left: this trigger runs after
-- claims_totals()). A bulk load (refresh deferred) or a TRUNCATE sends one event telling clients to
-- refetch instead.
CREATE OR REPLACE FUNCTION claims_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched integer[];
  written bigint;
BEGIN
  -- A statement that wrote no claim (an import's upsert of claims it already holds, equal) is no
  -- event. An insert or a delete tells by the events it wrote (one a claim); an update, whose
  -- campaigns change even when no claim event does, by a look at its rows first.
  IF TG_OP = 'TRUNCATE' OR refresh_deferred() THEN
    IF TG_OP = 'DELETE' THEN
      IF NOT EXISTS (SELECT 1 FROM old_claims) THEN RETURN NULL; END IF;
    ELSIF TG_OP <> 'TRUNCATE' THEN
      IF NOT EXISTS (SELECT 1 FROM new_claims) THEN RETURN NULL; END IF;
    END IF;
    INSERT INTO events (type, data) VALUES ('refetch', jsonb_build_object('reason', 'claims were rewritten in bulk'));
    RETURN NULL;
  END IF;

  IF TG_OP = 'INSERT' THEN
    INSERT INTO events (type, chain_id, campaign_id, claimant, data)
    SELECT CASE WHEN n.draw THEN 'draw.written' ELSE 'claim.written' END, n.chain_id, c.public_id, n.claimant, claim_event_data(n, c.public_id)
      FROM new_claims AS n JOIN campaigns AS c ON c.key = n.campaign_key
     ORDER BY n.id;
    GET DIAGNOSTICS written = ROW_COUNT;
    IF written = 0 THEN RETURN NULL; END IF;
    touched := ARRAY(SELECT DISTINCT n.campaign_key FROM new_claims AS n);
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO events (type, chain_id, campaign_id, claimant, data)
    SELECT CASE WHEN o.draw THEN 'draw.removed' ELSE 'claim.removed' END, o.chain_id, c.public_id, o.claimant, claim_event_data(o, c.public_id)
      FROM old_claims AS o LEFT JOIN campaigns AS c ON c.key = o.campaign_key
     ORDER BY o.id;
    GET DIAGNOSTICS written = ROW_COUNT;
    IF written = 0 THEN RETURN NULL; END IF;
    -- Claims that went with their incentive (a cascade) changed no totals: their campaign's change
    -- is the incentive's event.
    touched := ARRAY(SELECT DISTINCT o.campaign_key FROM old_claims AS o
                      WHERE EXISTS (SELECT 1 FROM incentives AS i WHERE i.campaign_key = o.campaign_key AND i.position = o.incentive_position));
  ELSE
    IF NOT EXISTS (SELECT 1 FROM new_claims) THEN RETURN NULL; END IF;
    -- A claim rewritten (its value found when a price arrived, a record imported again) is written
    -- again, as its clients see it; an update that changes nothing they see sends no claim event.
    -- Planned at every update, as the claim feed's pairing of old and new rows is (claims_volume_feed()).
    EXECUTE $statement$
    INSERT INTO events (type, chain_id, campaign_id, claimant, data)
    SELECT CASE WHEN n.draw THEN 'draw.written' ELSE 'claim.written' END, n.chain_id, c.public_id, n.claimant, claim_event_data(n, c.public_id)
      FROM old_claims AS o
      JOIN new_claims AS n USING (id)
      LEFT JOIN campaigns AS c ON c.key = n.campaign_key
     WHERE claim_event_data(o, NULL) IS DISTINCT FROM claim_event_data(n, NULL) OR o.campaign_key <> n.campaign_key OR o.draw <> n.draw
     ORDER BY n.id
    $statement$;
    touched := ARRAY(SELECT n.campaign_key FROM new_claims AS n UNION SELECT o.campaign_key FROM old_claims AS o);
  END IF;
  PERFORM record_campaign_events('campaign.changed', touched);
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claims_6_events_after_insert AFTER INSERT ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_events();

CREATE OR REPLACE TRIGGER claims_6_events_after_update AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_claims NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_events();

CREATE OR REPLACE TRIGGER claims_6_events_after_delete AFTER DELETE ON claims
  REFERENCING OLD TABLE AS old_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_events();

CREATE OR REPLACE TRIGGER claims_6_events_after_truncate AFTER TRUNCATE ON claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_events();
