-- Makes the refreshes of the given campaigns' claim-derived state (their campaign_live rows and flags)
-- wait for one another, whoever writes. Each refresh computes from the incentives its statement sees:
-- two transactions writing claims of different incentives of one campaign at once would each compute
-- without the other's uncommitted totals, and the one that wrote last would keep its stale view of
-- the other's incentive (a lost update, until the campaign's next claim). Called as a statement of
-- its own before the statement that reads the incentives: in READ COMMITTED that statement takes its
-- snapshot after the wait, so it sees every refresh of these campaigns that committed before.
--
-- Advisory locks held to the transaction's end, which write no WAL (a row lock writes a record and,
-- after a checkpoint, the page's full image). A refresh of many campaigns (a bulk load's, or of every
-- campaign) takes one lock for all of them instead of one each, which would fill the lock table; the
-- refreshes of a few take that one shared, then one per campaign in key order (no deadlock among them).
CREATE OR REPLACE FUNCTION lock_campaign_refresh(keys integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF keys IS NULL OR cardinality(keys) > 32 THEN
    PERFORM pg_advisory_xact_lock(731284156, 0);
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(731284156, 0);
  IF cardinality(keys) = 1 THEN
    -- One campaign (a claim's): its lock without a query over the keys.
    IF keys[1] IS NOT NULL THEN
      PERFORM pg_advisory_xact_lock(731284157, keys[1]);
    END IF;
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock(731284157, k)
     FROM (SELECT DISTINCT k FROM unnest(keys) AS k WHERE k IS NOT NULL ORDER BY k) AS sorted;
END
$$;
