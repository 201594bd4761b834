ALTER TABLE "claim_signatures" ADD COLUMN "tx_hash" text;--> statement-breakpoint
CREATE INDEX "claim_signatures_tx_idx" ON "claim_signatures" USING btree ("campaign_key","tx_hash") WHERE tx_hash IS NOT NULL;--> statement-breakpoint
ALTER TABLE "claim_signatures" ADD CONSTRAINT "claim_signatures_tx_hash_format" CHECK (tx_hash IS NULL OR (length(tx_hash) = 66 AND tx_hash ~ '^0x[0-9a-f]*$'));