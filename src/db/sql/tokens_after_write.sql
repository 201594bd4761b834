-- Tokens: metadata, whitelist and price appear in (or decide) the documents of the campaigns paying them.
CREATE OR REPLACE FUNCTION tokens_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  PERFORM refresh_campaigns(ARRAY(
    SELECT DISTINCT i.campaign_key
      FROM changed_rows AS t
      JOIN incentives AS i ON i.asset_address = t.address
      JOIN campaigns AS c ON c.key = i.campaign_key AND c.chain_id = t.chain_id));
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER tokens_after_insert AFTER INSERT ON tokens
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION tokens_after_write();

CREATE OR REPLACE TRIGGER tokens_after_update AFTER UPDATE ON tokens
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION tokens_after_write();

CREATE OR REPLACE TRIGGER tokens_after_delete AFTER DELETE ON tokens
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION tokens_after_write();
