ALTER TABLE "claims" DROP CONSTRAINT "claims_campaign_chain_fk";--> statement-breakpoint
ALTER TABLE "campaigns" DROP CONSTRAINT "campaigns_key_chain_unique";
