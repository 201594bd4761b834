-- pg_current_snapshot(), with the calling transaction's own changes counted as visible in it (by
-- itself, a transaction's snapshot shows its own id as not yet committed). The history tables store
-- the snapshot they stand at; when the transaction that computed them wrote claims too (a bulk load
-- that recomputes them at its end), the changes it wrote are in them, and must not be applied again.
-- Raising xmax past the own id lists the ids in between, assigned after the snapshot's last completed
-- one and so still in progress, as in progress.
CREATE OR REPLACE FUNCTION current_snapshot_with_own() RETURNS pg_snapshot LANGUAGE sql STABLE AS $$
  SELECT CASE
           WHEN t.own IS NULL OR t.own < pg_snapshot_xmax(t.s) THEN t.s
           ELSE (pg_snapshot_xmin(t.s)::text || ':' || (t.own::text::numeric + 1)::text || ':'
                 || array_to_string(ARRAY(SELECT x FROM pg_snapshot_xip(t.s) AS x
                                          UNION
                                          SELECT g::text::xid8 FROM generate_series(pg_snapshot_xmax(t.s)::text::numeric, t.own::text::numeric - 1) AS g
                                          ORDER BY 1), ','))::pg_snapshot
         END
    FROM (SELECT pg_current_snapshot() AS s, pg_current_xact_id_if_assigned() AS own) AS t;
$$;
