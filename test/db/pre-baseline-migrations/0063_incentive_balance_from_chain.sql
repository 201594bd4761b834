ALTER TABLE "incentives" drop column "total_budget";--> statement-breakpoint
ALTER TABLE "incentives" ADD COLUMN "balance" numeric;--> statement-breakpoint
ALTER TABLE "incentives" ADD COLUMN "total_budget" numeric GENERATED ALWAYS AS (CASE WHEN balance IS NOT NULL THEN balance + total_amount_claimed ELSE CASE type
        WHEN 'AllowListIncentive' THEN NULL
        WHEN 'PointsIncentive' THEN NULL
        WHEN 'ERC20Incentive' THEN CASE WHEN (params->>'strategy')::int = 1 THEN (params->>'reward')::numeric
                                        ELSE (params->>'reward')::numeric * (params->>'limit')::numeric END
        WHEN 'CGDAIncentive' THEN (params->>'totalBudget')::numeric
        ELSE (params->>'limit')::numeric
      END END) STORED;