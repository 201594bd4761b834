-- Called by every trigger that writes to `events`, once per statement: the first call of a
-- transaction registers it in event_commits, whose deferred trigger gives it its place in commit order
-- (order_event_commit()) when it commits. A transaction-local setting remembers that it is registered;
-- a savepoint rolled back forgets both the row and the setting.
CREATE OR REPLACE FUNCTION record_event_transaction() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('campaign_service.events_recorded', true) IS DISTINCT FROM 'on' THEN
    INSERT INTO event_commits (xid) VALUES (pg_current_xact_id()) ON CONFLICT (xid) DO NOTHING;
    PERFORM set_config('campaign_service.events_recorded', 'on', true);
  END IF;
END
$$;
