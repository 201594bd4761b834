-- The position of a transaction's events in commit order, the order the API's event streams
-- (GET /events) deliver them in and the Last-Event-ID they resume from. Runs as the transaction
-- commits (a deferred constraint trigger on every event inserted; the first of a transaction does the
-- work, the rest find the transaction-local setting and return): it takes a lock that every
-- event-writing transaction takes at this point and keeps until its commit is visible, then inserts
-- the transaction's event_commits row with the next number of event_commit_seq. So a transaction that
-- sees position N committed sees every position below it committed too, on the primary and on a hot
-- standby (which replays commits in the order they were written), and a reader that has delivered
-- everything through N never finds a smaller one later. Only the commits of event-writing
-- transactions wait on each other, and only for the commit itself.
--
-- The row is written once, numbered: nothing registers the transaction before its commit, so no
-- producer has to, no row is updated (no dead version per commit, no lookup whose plan depends on the
-- table's statistics), and events rolled back with a savepoint take their trigger calls with them.
-- The price: a statement that writes many events queues a call for each, all but the first of which
-- return at once.
--
-- Once a minute it deletes the events older than their retention (15 minutes) first, outside the
-- lock: a client resuming from an event older than event_retention.pruned_through is told to refetch.
-- An enabled webhook endpoint holds the events it has not had yet, for up to
-- event_retention.webhook_retention_seconds; past that its deliverer sends it a refetch. One
-- transaction prunes at a time (advisory lock 7312841564, a key of its own).
CREATE OR REPLACE FUNCTION order_event_commit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  horizon bigint;
BEGIN
  IF current_setting('campaign_service.events_numbered', true) = 'on' THEN
    RETURN NULL;
  END IF;
  PERFORM set_config('campaign_service.events_numbered', 'on', true);
  IF pg_try_advisory_xact_lock(7312841564) THEN
    UPDATE event_retention AS r
       SET pruned_at = now(),
           pruned_through = greatest(r.pruned_through,
             least(coalesce((SELECT max(c.seq) FROM event_commits AS c WHERE c.committed_at < now() - interval '15 minutes'), 0),
                   coalesce((SELECT min(w.cursor_seq) - 1 FROM webhook_endpoints AS w WHERE w.enabled), 9223372036854775807)),
             coalesce((SELECT max(c.seq) FROM event_commits AS c
                        WHERE c.committed_at < now() - greatest(interval '15 minutes', make_interval(secs => r.webhook_retention_seconds))), 0))
     WHERE r.pruned_at < now() - interval '1 minute'
    RETURNING r.pruned_through INTO horizon;
    IF horizon IS NOT NULL THEN
      DELETE FROM events AS e USING event_commits AS c WHERE e.xid = c.xid AND c.seq <= horizon;
      DELETE FROM event_commits WHERE seq <= horizon;
    END IF;
  END IF;
  PERFORM pg_advisory_xact_lock(7312841563);
  INSERT INTO event_commits (xid, seq, committed_at) VALUES (NEW.xid, nextval('event_commit_seq'), clock_timestamp());
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER events_order AFTER INSERT ON events
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION order_event_commit();
