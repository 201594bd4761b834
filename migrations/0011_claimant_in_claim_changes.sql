-- The claim feed carries each claim's claimant (the claimant leaderboards in memory). Its rows so far
-- have none: they make way for one reload marker (where there were any), on which every reader loads
-- the claims afresh.
ALTER TABLE "claim_changes" DROP CONSTRAINT "claim_changes_shape";--> statement-breakpoint
ALTER TABLE "claim_changes" ADD COLUMN "claimant" text;--> statement-breakpoint
WITH "gone" AS (DELETE FROM "claim_changes" RETURNING 1)
INSERT INTO "claim_changes" ("sign") SELECT 0 WHERE EXISTS (SELECT 1 FROM "gone");--> statement-breakpoint
ALTER TABLE "claim_changes" ADD CONSTRAINT "claim_changes_shape" CHECK ((sign IN (-1, 0, 1) AND campaign_key IS NOT NULL AND claimed_at IS NOT NULL AND usd_value IS NOT NULL AND claimant IS NOT NULL)
          OR (sign = 0 AND campaign_key IS NULL AND claimed_at IS NULL AND usd_value IS NULL AND claimant IS NULL));