-- Tokens, action templates and projects appear in the trending entries of many campaigns (a token in
-- every campaign paying or targeting it): any write to them that changes a row gives the shared part
-- of every entry's version a new value, so every kept entry is built again. Such writes are rare;
-- fanning them out to each campaign's version would rewrite thousands of rows for one token's price.
-- A statement that changed no row (an import's upsert of unchanged tokens) leaves it alone.
CREATE OR REPLACE FUNCTION entry_shared_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'TRUNCATE' THEN
    IF NOT EXISTS (SELECT 1 FROM changed_rows) THEN
      RETURN NULL;
    END IF;
  END IF;
  UPDATE entry_shared_version SET value = nextval('entry_version_seq') WHERE id = 1;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER tokens_entry_shared_after_insert AFTER INSERT ON tokens
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER tokens_entry_shared_after_update AFTER UPDATE ON tokens
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER tokens_entry_shared_after_delete AFTER DELETE ON tokens
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER tokens_entry_shared_after_truncate AFTER TRUNCATE ON tokens
  FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER action_templates_entry_shared_after_insert AFTER INSERT ON action_templates
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER action_templates_entry_shared_after_update AFTER UPDATE ON action_templates
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER action_templates_entry_shared_after_delete AFTER DELETE ON action_templates
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER action_templates_entry_shared_after_truncate AFTER TRUNCATE ON action_templates
  FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER projects_entry_shared_after_insert AFTER INSERT ON projects
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER projects_entry_shared_after_update AFTER UPDATE ON projects
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER projects_entry_shared_after_delete AFTER DELETE ON projects
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER projects_entry_shared_after_truncate AFTER TRUNCATE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();
