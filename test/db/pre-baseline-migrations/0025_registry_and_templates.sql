CREATE TABLE "budget_account_members" (
	"chain_id" integer NOT NULL,
	"account_address" text NOT NULL,
	"member_address" text NOT NULL,
	"roles" smallint[] NOT NULL,
	"email" text,
	"status" text,
	CONSTRAINT "budget_account_members_chain_id_account_address_member_address_pk" PRIMARY KEY("chain_id","account_address","member_address"),
	CONSTRAINT "budget_account_members_member_format" CHECK (length(member_address) = 42 AND member_address ~ '^0x[0-9a-f]*$'),
	CONSTRAINT "budget_account_members_roles" CHECK ("budget_account_members"."roles" <@ ARRAY[1, 2]::smallint[]),
	CONSTRAINT "budget_account_members_status" CHECK ("budget_account_members"."status" IS NULL OR status IN ('wallet_created', 'invited', 'accepted', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "budget_accounts" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"registry_type" text NOT NULL,
	"base_implementation" text NOT NULL,
	"deployed_instance" text NOT NULL,
	"tx_hash" text NOT NULL,
	"block_timestamp" bigint NOT NULL,
	"block_number" bigint NOT NULL,
	"name" text,
	"owner" text NOT NULL,
	"owner_email" text,
	"hidden" boolean DEFAULT false NOT NULL,
	"label" text,
	"deprecated" boolean DEFAULT false NOT NULL,
	CONSTRAINT "budget_accounts_chain_id_address_pk" PRIMARY KEY("chain_id","address"),
	CONSTRAINT "budget_accounts_address_format" CHECK (length(address) = 42 AND address ~ '^0x[0-9a-f]*$'),
	CONSTRAINT "budget_accounts_owner_format" CHECK (length(owner) = 42 AND owner ~ '^0x[0-9a-f]*$'),
	CONSTRAINT "budget_accounts_base_implementation_format" CHECK (length(base_implementation) = 42 AND base_implementation ~ '^0x[0-9a-f]*$'),
	CONSTRAINT "budget_accounts_deployed_instance_format" CHECK (length(deployed_instance) = 42 AND deployed_instance ~ '^0x[0-9a-f]*$'),
	CONSTRAINT "budget_accounts_registry_type" CHECK (registry_type IN ('ACTION', 'ALLOW_LIST', 'BUDGET', 'INCENTIVE', 'VALIDATOR'))
);
--> statement-breakpoint
CREATE TABLE "known_signatures" (
	"id" text PRIMARY KEY NOT NULL,
	"text_signature" text NOT NULL,
	"abi_item" jsonb,
	"signature_type" text NOT NULL,
	CONSTRAINT "known_signatures_id_format" CHECK (length(id) = 66 AND id ~ '^0x[0-9a-f]*$'),
	CONSTRAINT "known_signatures_type" CHECK (signature_type IN ('event', 'function'))
);
--> statement-breakpoint
DROP INDEX "claims_campaign_claimed_at_idx";--> statement-breakpoint
-- Templates written before this migration have no title or configuration: the title starts as the
-- description, the configurations as {} (such a template is not served until it is imported again
-- with its configuration; see docs/writing-data.md).
ALTER TABLE "action_templates" ADD COLUMN "title" text;--> statement-breakpoint
UPDATE "action_templates" SET "title" = "description";--> statement-breakpoint
ALTER TABLE "action_templates" ALTER COLUMN "title" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "action_templates" ADD COLUMN "campaign_config" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "action_templates" ALTER COLUMN "campaign_config" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "action_templates" ADD COLUMN "name_config" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "action_templates" ALTER COLUMN "name_config" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "action_templates" ADD COLUMN "is_active" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "action_templates" ADD COLUMN "url_template" text;--> statement-breakpoint
ALTER TABLE "action_templates" ADD COLUMN "allowlist" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "action_templates" ADD COLUMN "distribution_channels" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "action_templates" ADD COLUMN "verification_level" text;--> statement-breakpoint
ALTER TABLE "action_templates" ADD COLUMN "builder_metadata" jsonb;--> statement-breakpoint
ALTER TABLE "action_templates" ADD COLUMN "builder_budget_account" text GENERATED ALWAYS AS (lower(builder_metadata #>> '{budgetAccount,address}')) STORED;--> statement-breakpoint
ALTER TABLE "action_templates" ADD COLUMN "status" text DEFAULT 'approved' NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "slug" text GENERATED ALWAYS AS (trim(both '-' from regexp_replace(lower(name), '[^a-z0-9]+', '-', 'g'))) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "is_blocked" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "budget_account_members" ADD CONSTRAINT "budget_account_members_account_fk" FOREIGN KEY ("chain_id","account_address") REFERENCES "public"."budget_accounts"("chain_id","address") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "budget_account_members_member_idx" ON "budget_account_members" USING btree ("member_address","chain_id","account_address");--> statement-breakpoint
CREATE INDEX "budget_accounts_listed_idx" ON "budget_accounts" USING btree ("chain_id","address") WHERE NOT hidden;--> statement-breakpoint
CREATE INDEX "budget_accounts_owner_idx" ON "budget_accounts" USING btree ("owner","chain_id","address") WHERE NOT hidden;--> statement-breakpoint
CREATE INDEX "action_templates_builder_budget_account_idx" ON "action_templates" USING btree ("builder_budget_account");--> statement-breakpoint
CREATE INDEX "claim_signatures_unused_idx" ON "claim_signatures" USING btree ("claimant","id" DESC NULLS LAST) WHERE NOT used;--> statement-breakpoint
CREATE INDEX "claims_campaign_claimed_at_idx" ON "claims" USING btree ("campaign_key","claimed_at","id");--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_slug_unique" UNIQUE("slug");--> statement-breakpoint
ALTER TABLE "action_templates" ADD CONSTRAINT "action_templates_status" CHECK (status IN ('pending', 'approved', 'rejected', 'duplicated'));--> statement-breakpoint
ALTER TABLE "action_templates" ADD CONSTRAINT "action_templates_distribution_channels" CHECK (distribution_channels <@ ARRAY['public', 'farcaster', 'worldcoin', 'celo', 'rabbithole']::text[]);--> statement-breakpoint
ALTER TABLE "action_templates" ADD CONSTRAINT "action_templates_campaign_config_object" CHECK (jsonb_typeof("action_templates"."campaign_config") = 'object');--> statement-breakpoint
ALTER TABLE "action_templates" ADD CONSTRAINT "action_templates_name_config_object" CHECK (jsonb_typeof("action_templates"."name_config") = 'object');--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_blocked_not_whitelisted" CHECK (NOT ("tokens"."is_blocked" AND "tokens"."is_whitelisted"));