-- Claims, fifth (the order: README.md here): a campaign's history, kept by the hour so that
-- GET /campaigns/{id}/history reads hours instead of claims. claim_hours adds what the statement
-- changed (claims, draws, amount, USD per campaign, UTC hour and incentive); claimant_buckets moves
-- the distinct claimants of each UTC hour and day, and the bucket of each claimant's first claim of
-- the campaign. Rows that reach zero go.
--
-- The claimant counts are found, not added: for each (campaign, claimant, bucket) the statement
-- touched, the claims table as it is now and the statement's own rows say whether the claimant was
-- there before and is there after (at most the statement's rows + 1 claims are counted); the first
-- claim before is the earliest of the claims now, the statement's new rows aside, and its old rows.
-- Two transactions writing claims of one campaign must not both take the same claimant for new, so
-- the campaigns are locked first (lock_campaign_refresh(), the lock claims_totals holds already) and
-- the statements after it see every claim committed before: this is right under READ COMMITTED, the
-- isolation claim writers use.
--
-- An update counts for the claimants only where it moves a claim (campaign, claimant, time, draw); a
-- revaluation changes USD alone. A bulk load (refresh deferred) leaves everything to
-- recompute_claim_history(), which the loader calls at its end; a TRUNCATE empties both tables.
CREATE OR REPLACE FUNCTION claims_history() RETURNS trigger LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  the_keys integer[];
  the_positions integer[];
  the_claimants text[];
  the_ats timestamptz[];
  the_draws boolean[];
  the_amounts numeric[];
  the_usds numeric[];
  the_signs integer[];
  the_ids bigint[];
  the_moves boolean[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM claim_hours;
    DELETE FROM claimant_buckets;
    RETURN NULL;
  END IF;
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;

  -- The statement's rows: +1 for a row as it is now, -1 as it was.
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.campaign_key), array_agg(n.incentive_position), array_agg(n.claimant), array_agg(n.claimed_at),
           array_agg(n.draw), array_agg(n.amount), array_agg(n.usd_value), array_agg(1), array_agg(n.id), array_agg(true)
      INTO the_keys, the_positions, the_claimants, the_ats, the_draws, the_amounts, the_usds, the_signs, the_ids, the_moves
      FROM new_claims AS n;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.campaign_key), array_agg(o.incentive_position), array_agg(o.claimant), array_agg(o.claimed_at),
           array_agg(o.draw), array_agg(o.amount), array_agg(o.usd_value), array_agg(-1), array_agg(o.id), array_agg(true)
      INTO the_keys, the_positions, the_claimants, the_ats, the_draws, the_amounts, the_usds, the_signs, the_ids, the_moves
      FROM old_claims AS o;
  ELSE
    SELECT array_agg(c.campaign_key), array_agg(c.incentive_position), array_agg(c.claimant), array_agg(c.claimed_at),
           array_agg(c.draw), array_agg(c.amount), array_agg(c.usd_value), array_agg(c.sign), array_agg(c.id), array_agg(c.moves)
      INTO the_keys, the_positions, the_claimants, the_ats, the_draws, the_amounts, the_usds, the_signs, the_ids, the_moves
      FROM (SELECT side.*
              FROM old_claims AS o
              JOIN new_claims AS n ON n.id = o.id
             CROSS JOIN LATERAL (
                     VALUES (o.campaign_key, o.incentive_position, o.claimant, o.claimed_at, o.draw, o.amount, o.usd_value, -1, o.id,
                             (o.campaign_key, o.claimant, o.claimed_at, o.draw) IS DISTINCT FROM (n.campaign_key, n.claimant, n.claimed_at, n.draw)),
                            (n.campaign_key, n.incentive_position, n.claimant, n.claimed_at, n.draw, n.amount, n.usd_value, 1, n.id,
                             (o.campaign_key, o.claimant, o.claimed_at, o.draw) IS DISTINCT FROM (n.campaign_key, n.claimant, n.claimed_at, n.draw))
                   ) AS side(campaign_key, incentive_position, claimant, claimed_at, draw, amount, usd_value, sign, id, moves)
             WHERE (o.campaign_key, o.incentive_position, o.claimant, o.claimed_at, o.draw, o.amount, o.usd_value)
                   IS DISTINCT FROM (n.campaign_key, n.incentive_position, n.claimant, n.claimed_at, n.draw, n.amount, n.usd_value)) AS c;
  END IF;
  IF the_keys IS NULL THEN
    RETURN NULL;
  END IF;

  -- Payments: sums, so concurrent writers simply add (in key order, so that they cannot deadlock).
  INSERT INTO claim_hours AS h (campaign_key, hour, incentive_position, rows, claims, amount, usd)
  SELECT d.campaign_key, date_trunc('hour', d.claimed_at, 'UTC'), d.incentive_position, sum(d.sign),
         coalesce(sum(d.sign) FILTER (WHERE NOT d.draw), 0), sum(d.sign * d.amount), sum(d.sign * d.usd_value)
    FROM unnest(the_keys, the_positions, the_ats, the_draws, the_amounts, the_usds, the_signs) AS d(campaign_key, incentive_position, claimed_at, draw, amount, usd_value, sign)
   GROUP BY 1, 2, 3
   ORDER BY 1, 2, 3
      ON CONFLICT (campaign_key, hour, incentive_position) DO UPDATE
     SET rows = h.rows + excluded.rows, claims = h.claims + excluded.claims,
         amount = h.amount + excluded.amount, usd = h.usd + excluded.usd;
  DELETE FROM claim_hours AS h
   USING (SELECT DISTINCT d.campaign_key, date_trunc('hour', d.claimed_at, 'UTC') AS hour, d.incentive_position
            FROM unnest(the_keys, the_positions, the_ats, the_signs) AS d(campaign_key, incentive_position, claimed_at, sign) WHERE d.sign < 0) AS gone
   WHERE h.campaign_key = gone.campaign_key AND h.hour = gone.hour AND h.incentive_position = gone.incentive_position AND h.rows = 0;

  -- Claimants: only claims (not draws) that the statement moved.
  IF NOT EXISTS (SELECT 1 FROM unnest(the_draws, the_moves) AS d(draw, moves) WHERE d.moves AND NOT d.draw) THEN
    RETURN NULL;
  END IF;
  -- The lock claims_totals took already for these campaigns (held to the transaction's end): taken
  -- again here in case that trigger found nothing to change, and a statement of its own, so that the
  -- statements after it see every claim of these campaigns committed before.
  PERFORM lock_campaign_refresh(ARRAY(SELECT DISTINCT d.campaign_key FROM unnest(the_keys, the_draws, the_moves) AS d(campaign_key, draw, moves)
                                      WHERE d.moves AND NOT d.draw));

  WITH moved AS (
         SELECT d.campaign_key, d.claimant, d.claimed_at, d.sign, d.id
           FROM unnest(the_keys, the_claimants, the_ats, the_draws, the_signs, the_ids, the_moves) AS d(campaign_key, claimant, claimed_at, draw, sign, id, moves)
          WHERE d.moves AND NOT d.draw),
       -- Each bucket a claimant's moved claims are in: was the claimant there before, is it now?
       presence AS (
         SELECT m.campaign_key, g.unit, date_trunc(g.unit, m.claimed_at, 'UTC') AS start, m.claimant,
                count(*) FILTER (WHERE m.sign > 0) AS added, count(*) FILTER (WHERE m.sign < 0) AS removed
           FROM moved AS m CROSS JOIN (VALUES ('hour'), ('day')) AS g(unit)
          GROUP BY 1, 2, 3, 4),
       -- The bucket is a range of claims_claimant_campaign_idx: the claimant, then a row comparison
       -- over (campaign, time). As separate conditions on campaign and time, the planner takes the
       -- campaign's index when it estimates both at a row (as it does before claims has
       -- statistics), and every claimant's lookup reads all of a busy campaign's claims of the hour.
       -- The row comparison leaves out the claimant, which the equality fixes: over all three
       -- columns, the scan would start at the claimant's first claim and read every claim it made
       -- before the bucket. Materialized: each count is used twice below, and inlined it is looked up twice.
       counted AS MATERIALIZED (
         SELECT p.*, (SELECT count(*) FROM (SELECT 1 FROM claims AS c
                                              WHERE c.claimant = p.claimant
                                                AND (c.campaign_key, c.claimed_at) >= (p.campaign_key, p.start)
                                                AND (c.campaign_key, c.claimed_at) < (p.campaign_key, p.start + ('1 ' || p.unit)::interval)
                                                AND NOT c.draw
                                              LIMIT p.added + 1) AS x) AS now_count
           FROM presence AS p),
       claimant_deltas AS (
         SELECT c.campaign_key, c.unit, c.start, (c.now_count > 0)::integer - (c.now_count > c.added - c.removed)::integer AS claimants, 0 AS new_claimants
           FROM counted AS c),
       -- Each claimant's first claim of the campaign, before the statement and now.
       firsts AS (
         SELECT f.campaign_key, f.claimant,
                least((SELECT min(c.claimed_at) FROM claims AS c
                        WHERE c.claimant = f.claimant AND c.campaign_key = f.campaign_key AND NOT c.draw AND c.id <> ALL (f.added_ids)),
                      f.removed_first) AS before,
                (SELECT min(c.claimed_at) FROM claims AS c WHERE c.claimant = f.claimant AND c.campaign_key = f.campaign_key AND NOT c.draw) AS after
           FROM (SELECT m.campaign_key, m.claimant, coalesce(array_agg(m.id) FILTER (WHERE m.sign > 0), '{}') AS added_ids,
                        min(m.claimed_at) FILTER (WHERE m.sign < 0) AS removed_first
                   FROM moved AS m GROUP BY 1, 2) AS f),
       newcomer_deltas AS (
         SELECT f.campaign_key, g.unit, date_trunc(g.unit, side.at, 'UTC') AS start, 0 AS claimants, side.sign AS new_claimants
           FROM firsts AS f
          CROSS JOIN (VALUES ('hour'), ('day')) AS g(unit)
          CROSS JOIN LATERAL (VALUES (f.before, -1), (f.after, 1)) AS side(at, sign)
          WHERE f.before IS DISTINCT FROM f.after AND side.at IS NOT NULL),
       deltas AS (
         SELECT campaign_key, unit, start, sum(claimants)::integer AS claimants, sum(new_claimants)::integer AS new_claimants
           FROM (SELECT * FROM claimant_deltas UNION ALL SELECT * FROM newcomer_deltas) AS d
          GROUP BY 1, 2, 3
         HAVING sum(claimants) <> 0 OR sum(new_claimants) <> 0),
       upserted AS (
         INSERT INTO claimant_buckets AS b (campaign_key, unit, start, claimants, new_claimants)
         SELECT * FROM deltas ORDER BY 1, 2, 3
             ON CONFLICT (campaign_key, unit, start) DO UPDATE
            SET claimants = b.claimants + excluded.claimants, new_claimants = b.new_claimants + excluded.new_claimants
         RETURNING b.campaign_key, b.unit, b.start, b.claimants, b.new_claimants)
  SELECT array_agg(u.campaign_key), array_agg(u.unit), array_agg(u.start)
    INTO the_keys, the_claimants, the_ats
    FROM upserted AS u WHERE u.claimants = 0 AND u.new_claimants = 0;
  -- A second statement: the upsert's own statement cannot delete the rows it updated.
  DELETE FROM claimant_buckets AS b
   USING unnest(the_keys, the_claimants, the_ats) AS e(campaign_key, unit, start)
   WHERE b.campaign_key = e.campaign_key AND b.unit = e.unit AND b.start = e.start AND b.claimants = 0 AND b.new_claimants = 0;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claims_5_history_after_insert AFTER INSERT ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_history();

CREATE OR REPLACE TRIGGER claims_5_history_after_update AFTER UPDATE ON claims
  REFERENCING OLD TABLE AS old_claims NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_history();

CREATE OR REPLACE TRIGGER claims_5_history_after_delete AFTER DELETE ON claims
  REFERENCING OLD TABLE AS old_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_history();

CREATE OR REPLACE TRIGGER claims_5_history_after_truncate AFTER TRUNCATE ON claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_history();
