CREATE TABLE "claim_hours" (
	"campaign_key" integer NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"incentive_position" smallint NOT NULL,
	"rows" integer NOT NULL,
	"claims" integer NOT NULL,
	"amount" numeric NOT NULL,
	"usd" numeric NOT NULL,
	CONSTRAINT "claim_hours_campaign_key_hour_incentive_position_pk" PRIMARY KEY("campaign_key","hour","incentive_position")
);
--> statement-breakpoint
CREATE TABLE "claimant_buckets" (
	"campaign_key" integer NOT NULL,
	"unit" text NOT NULL,
	"start" timestamp with time zone NOT NULL,
	"claimants" integer NOT NULL,
	"new_claimants" integer NOT NULL,
	CONSTRAINT "claimant_buckets_campaign_key_unit_start_pk" PRIMARY KEY("campaign_key","unit","start"),
	CONSTRAINT "claimant_buckets_unit" CHECK ("claimant_buckets"."unit" IN ('hour', 'day'))
);
