-- Custom SQL migration file, put your code below! --
-- Existing documents still hold the fields claims change; rebuild them with placeholders, and fill
-- campaign_live (about 20 s for 100,000 campaigns).
SELECT refresh_campaigns(NULL);
