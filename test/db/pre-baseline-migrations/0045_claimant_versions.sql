CREATE TABLE "claimant_versions" (
	"claimant" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
