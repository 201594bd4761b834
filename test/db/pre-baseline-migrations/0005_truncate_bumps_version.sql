-- Custom SQL migration file, put your code below! --
-- Emptying campaigns (TRUNCATE, as the demo refresh does) changes every filtered total, like any
-- other write; INSERT, UPDATE and DELETE triggers do not fire on TRUNCATE, so a trigger of its own bumps the version.
CREATE FUNCTION campaigns_after_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM bump_campaign_set_version();
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER campaigns_after_truncate AFTER TRUNCATE ON campaigns
  FOR EACH STATEMENT EXECUTE FUNCTION campaigns_after_truncate();
