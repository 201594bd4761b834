-- Claims, first of their triggers (the order: README.md here): a claim's chain is its campaign's. The
-- chain is part of the claim's natural key. Checked in one statement over the written claims, not by
-- a foreign key to campaigns (key, chain_id): that key's check locked the campaign's row for every
-- claim, a WAL record and a dirtied campaigns page each time. That the campaign exists, and that its
-- claims go when it goes, claims_incentive_fk keeps; that a campaign's chain never changes
-- afterwards, campaign_chain_fixed(). First, so that a refused write costs nothing more.
--
-- Counted, not tested with EXISTS: under EXISTS the planner picks the plan that starts fastest, a
-- nested loop that compares every written claim with every campaign (a materialized seq scan while a
-- bulk load has the indexes set aside). A count is planned for its whole cost. PL/pgSQL keeps the
-- first plan of each statement for the session, made for the size of the transition table then, so
-- the same count is written twice: a block's few claims keep a plan of primary-key lookups, a batch
-- gets one made for a batch (a hash join once the batch is large against the campaigns). With one
-- statement, a session's single claims after a large batch would scan every campaign each.
CREATE OR REPLACE FUNCTION claims_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mismatched bigint;
BEGIN
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
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER claims_1_check_after_insert AFTER INSERT ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_check();

CREATE OR REPLACE TRIGGER claims_1_check_after_update AFTER UPDATE ON claims
  REFERENCING NEW TABLE AS new_claims
  FOR EACH STATEMENT EXECUTE FUNCTION claims_check();
