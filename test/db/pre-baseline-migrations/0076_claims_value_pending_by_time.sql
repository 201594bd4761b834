DROP INDEX "claims_value_pending_idx";--> statement-breakpoint
CREATE INDEX "claims_value_pending_idx" ON "claims" USING btree ("claimed_at","chain_id") WHERE "claims"."value_pending";