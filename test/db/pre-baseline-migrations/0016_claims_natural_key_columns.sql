ALTER TABLE "claims" ADD COLUMN "chain_id" integer;--> statement-breakpoint
ALTER TABLE "claims" ADD COLUMN "log_index" integer;