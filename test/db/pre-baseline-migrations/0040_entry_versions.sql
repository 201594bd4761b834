CREATE SEQUENCE "public"."entry_version_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "entry_shared_version" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"value" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "entry_shared_version_single_row" CHECK (id = 1)
);
--> statement-breakpoint
CREATE TABLE "entry_versions" (
	"campaign_key" integer PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "entry_versions" ADD CONSTRAINT "entry_versions_campaign_key_campaigns_key_fk" FOREIGN KEY ("campaign_key") REFERENCES "public"."campaigns"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "entry_shared_version" ("id", "value") VALUES (1, nextval('entry_version_seq'));--> statement-breakpoint
INSERT INTO "entry_versions" ("campaign_key", "version") SELECT "key", nextval('entry_version_seq') FROM "campaigns";
