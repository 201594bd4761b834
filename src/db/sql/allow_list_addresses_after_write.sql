-- The addresses of a SimpleAllowList or SimpleDenyList appear in the documents of the campaigns that use it.
CREATE OR REPLACE FUNCTION allow_list_addresses_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  PERFORM refresh_campaigns(ARRAY(SELECT c.key FROM campaigns AS c
                                   WHERE c.allow_list_id IN (SELECT allow_list_id FROM changed_rows)));
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER allow_list_addresses_after_insert AFTER INSERT ON allow_list_addresses
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION allow_list_addresses_after_write();

CREATE OR REPLACE TRIGGER allow_list_addresses_after_update AFTER UPDATE ON allow_list_addresses
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION allow_list_addresses_after_write();

CREATE OR REPLACE TRIGGER allow_list_addresses_after_delete AFTER DELETE ON allow_list_addresses
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION allow_list_addresses_after_write();
