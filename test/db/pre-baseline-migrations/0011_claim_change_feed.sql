CREATE TABLE "claim_change_marks" (
	"taken_at" timestamp with time zone PRIMARY KEY NOT NULL,
	"snapshot" "pg_snapshot" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "claim_changes" (
	"xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	"campaign_key" integer,
	"claimed_at" timestamp with time zone,
	"usd_value" numeric(38, 6),
	"sign" smallint NOT NULL,
	CONSTRAINT "claim_changes_shape" CHECK ((sign IN (-1, 1) AND campaign_key IS NOT NULL AND claimed_at IS NOT NULL AND usd_value IS NOT NULL)
          OR (sign = 0 AND campaign_key IS NULL AND claimed_at IS NULL AND usd_value IS NULL))
);
--> statement-breakpoint
CREATE INDEX "claim_changes_xid_idx" ON "claim_changes" USING btree ("xid");