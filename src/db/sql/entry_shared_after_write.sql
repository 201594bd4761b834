-- Tokens, action templates and projects appear in the trending entries of many campaigns (a token in
-- every campaign paying or targeting it): any write to them gives the shared part of every entry's
-- version a new value, so every kept entry is built again. Such writes are rare; fanning them out to
-- each campaign's version would rewrite thousands of rows for one token's price.
CREATE OR REPLACE FUNCTION entry_shared_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE entry_shared_version SET value = nextval('entry_version_seq') WHERE id = 1;
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER tokens_entry_shared_after_write AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tokens
  FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER action_templates_entry_shared_after_write AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON action_templates
  FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();

CREATE OR REPLACE TRIGGER projects_entry_shared_after_write AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON projects
  FOR EACH STATEMENT EXECUTE FUNCTION entry_shared_after_write();
