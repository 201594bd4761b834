-- Custom SQL migration file, put your code below! --
-- Claims existing before the natural key (chain, transaction hash, log index) get one: the chain of
-- their campaign, and as log index their rank among the claims of the same transaction (by id), so
-- that no two collide. Only chain_id and log_index change, so the claim totals stay as they are:
-- the triggers are deferred for this statement instead of diffing every claim twice.
SELECT set_config('campaign_service.defer_refresh', 'on', true);
--> statement-breakpoint
UPDATE claims AS c
   SET chain_id = k.chain_id,
       log_index = k.log_index
  FROM (SELECT claims.id, campaigns.chain_id,
               (row_number() OVER (PARTITION BY campaigns.chain_id, claims.tx_hash ORDER BY claims.id) - 1)::integer AS log_index
          FROM claims JOIN campaigns ON campaigns.key = claims.campaign_key) AS k
 WHERE c.id = k.id;
--> statement-breakpoint
SELECT set_config('campaign_service.defer_refresh', '', true);
