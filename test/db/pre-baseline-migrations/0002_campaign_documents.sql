CREATE TABLE "campaign_documents" (
	"campaign_key" integer PRIMARY KEY NOT NULL,
	"list_item" text NOT NULL,
	"detail" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaign_set_version" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"value" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "campaign_set_version_single_row" CHECK (id = 1)
);
--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "pays_only_whitelisted_tokens" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "incentives" ADD COLUMN "total_usd_claimed" numeric(38, 6) DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "campaign_documents" ADD CONSTRAINT "campaign_documents_campaign_key_campaigns_key_fk" FOREIGN KEY ("campaign_key") REFERENCES "public"."campaigns"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaigns_recent_whitelisted_idx" ON "campaigns" USING btree ("block_timestamp" DESC NULLS LAST,"public_id","key") WHERE pays_only_whitelisted_tokens;--> statement-breakpoint
CREATE INDEX "campaigns_start_time_idx" ON "campaigns" USING btree ("start_time");--> statement-breakpoint
CREATE INDEX "campaigns_end_time_idx" ON "campaigns" USING btree ("end_time");