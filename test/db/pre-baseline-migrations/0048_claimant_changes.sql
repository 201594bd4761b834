CREATE TABLE "claimant_changes" (
	"claimant" text NOT NULL,
	"xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "claimant_changes_claimant_xid_idx" ON "claimant_changes" USING btree ("claimant","xid");