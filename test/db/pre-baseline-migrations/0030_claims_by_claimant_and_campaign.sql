DROP INDEX "claims_claimant_idx";--> statement-breakpoint
CREATE INDEX "claims_claimant_campaign_idx" ON "claims" USING btree ("claimant","campaign_key","claimed_at");