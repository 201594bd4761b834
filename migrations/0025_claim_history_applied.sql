CREATE TABLE "claim_history_applied" (
	"one" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"snapshot" "pg_snapshot" NOT NULL,
	CONSTRAINT "claim_history_applied_one" CHECK ("claim_history_applied"."one")
);
--> statement-breakpoint
CREATE TABLE "claimant_firsts" (
	"campaign_key" integer NOT NULL,
	"claimant" text NOT NULL,
	"first_at" timestamp with time zone NOT NULL,
	CONSTRAINT "claimant_firsts_campaign_key_claimant_pk" PRIMARY KEY("campaign_key","claimant")
);
