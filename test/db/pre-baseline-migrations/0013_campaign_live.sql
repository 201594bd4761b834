CREATE TABLE "campaign_live" (
	"campaign_key" integer PRIMARY KEY NOT NULL,
	"incentive_fields" text[] NOT NULL,
	"list_totals" text NOT NULL,
	"detail_totals" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "campaign_live" ADD CONSTRAINT "campaign_live_campaign_key_campaigns_key_fk" FOREIGN KEY ("campaign_key") REFERENCES "public"."campaigns"("key") ON DELETE cascade ON UPDATE no action;