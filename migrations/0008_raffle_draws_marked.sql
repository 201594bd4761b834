-- Claims written before `draw` existed: a payout of a RAFFLE ERC20Incentive is its draw (its entries
-- are claims of amount 0). The update goes through claims_after_write(): the incentives' claim counts
-- drop the draws, the claim volumes keep their USD and no longer count them, streams get draw.written.
UPDATE claims AS k SET draw = true
  FROM incentives AS i
 WHERE i.campaign_key = k.campaign_key AND i.position = k.incentive_position
   AND i.type = 'ERC20Incentive' AND i.params->>'strategy' = '1' AND k.amount > 0 AND NOT k.draw;
--> statement-breakpoint
-- Live fields as incentive_live_json() now writes them.
SELECT refresh_campaign_totals(NULL);
