ALTER TABLE "claims" ALTER COLUMN "chain_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "claims" ALTER COLUMN "log_index" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_campaign_chain_fk" FOREIGN KEY ("campaign_key","chain_id") REFERENCES "public"."campaigns"("key","chain_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_natural_key" UNIQUE("chain_id","tx_hash","log_index");