ALTER TABLE "claim_changes" DROP CONSTRAINT "claim_changes_shape";--> statement-breakpoint
ALTER TABLE "claim_changes" ADD CONSTRAINT "claim_changes_shape" CHECK ((sign IN (-1, 0, 1) AND campaign_key IS NOT NULL AND claimed_at IS NOT NULL AND usd_value IS NOT NULL)
          OR (sign = 0 AND campaign_key IS NULL AND claimed_at IS NULL AND usd_value IS NULL));