CREATE TABLE "indexer_blocks" (
	"chain_id" integer NOT NULL,
	"core_address" text NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	CONSTRAINT "indexer_blocks_chain_id_core_address_block_number_pk" PRIMARY KEY("chain_id","core_address","block_number")
);
--> statement-breakpoint
CREATE TABLE "indexer_checkpoints" (
	"chain_id" integer NOT NULL,
	"core_address" text NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"block_timestamp" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "indexer_checkpoints_chain_id_core_address_pk" PRIMARY KEY("chain_id","core_address"),
	CONSTRAINT "indexer_checkpoints_core_format" CHECK (length(core_address) = 42 AND core_address ~ '^0x[0-9a-f]*$')
);
--> statement-breakpoint
CREATE TABLE "indexer_incentives" (
	"chain_id" integer NOT NULL,
	"core_address" text NOT NULL,
	"boost_id" numeric(78, 0) NOT NULL,
	"incentive_id" integer NOT NULL,
	"address" text NOT NULL,
	"position" smallint,
	"block_number" bigint NOT NULL,
	CONSTRAINT "indexer_incentives_chain_id_core_address_boost_id_incentive_id_pk" PRIMARY KEY("chain_id","core_address","boost_id","incentive_id")
);
--> statement-breakpoint
CREATE TABLE "indexer_writes" (
	"chain_id" integer NOT NULL,
	"core_address" text NOT NULL,
	"block_number" bigint NOT NULL,
	"kind" text NOT NULL,
	"natural_key" text NOT NULL,
	"record" jsonb NOT NULL,
	CONSTRAINT "indexer_writes_chain_id_core_address_kind_natural_key_pk" PRIMARY KEY("chain_id","core_address","kind","natural_key")
);
--> statement-breakpoint
CREATE INDEX "indexer_incentives_block_idx" ON "indexer_incentives" USING btree ("chain_id","core_address","block_number");--> statement-breakpoint
CREATE INDEX "indexer_writes_block_idx" ON "indexer_writes" USING btree ("chain_id","core_address","block_number");