CREATE TABLE "token_prices" (
	"chain_id" integer NOT NULL,
	"address" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"source" text NOT NULL,
	"price_usd" numeric(38, 18) NOT NULL,
	CONSTRAINT "token_prices_chain_id_address_at_source_pk" PRIMARY KEY("chain_id","address","at","source"),
	CONSTRAINT "token_prices_address_format" CHECK (length(address) = 42 AND address ~ '^0x[0-9a-f]*$'),
	CONSTRAINT "token_prices_positive" CHECK ("token_prices"."price_usd" > 0)
);
--> statement-breakpoint
ALTER TABLE "claims" ADD COLUMN "value_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "claims_value_pending_idx" ON "claims" USING btree ("chain_id","claimed_at") WHERE "claims"."value_pending";
--> statement-breakpoint
-- The prices imported so far start the history, as of now.
INSERT INTO "token_prices" ("chain_id", "address", "at", "source", "price_usd")
SELECT "chain_id", "address", now(), 'import', "price_usd" FROM "tokens" WHERE "price_usd" > 0;
