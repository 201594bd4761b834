CREATE SEQUENCE "public"."event_commit_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "event_commits" (
	"xid" "xid8" PRIMARY KEY NOT NULL,
	"seq" bigint,
	"committed_at" timestamp with time zone,
	CONSTRAINT "event_commits_seq_unique" UNIQUE("seq")
);
--> statement-breakpoint
CREATE TABLE "event_retention" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"pruned_through" bigint DEFAULT 0 NOT NULL,
	"pruned_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "event_retention_single_row" CHECK (id = 1)
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"xid" "xid8" DEFAULT pg_current_xact_id() NOT NULL,
	"type" text NOT NULL,
	"chain_id" integer,
	"campaign_id" text COLLATE "C",
	"claimant" text,
	"data" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "claims" ADD COLUMN "block_number" bigint;--> statement-breakpoint
CREATE INDEX "events_xid_idx" ON "events" USING btree ("xid","id");--> statement-breakpoint
INSERT INTO event_retention (id) VALUES (1);