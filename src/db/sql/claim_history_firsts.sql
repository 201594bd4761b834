-- The claimants whose first claim of a campaign (raffle draws are not claims) the claim changes
-- since `applied` moved (claim_history_changes(), one campaign or all): where claimant_firsts has it
-- (`before`, NULL for a claimant new to the campaign) and where the claims as the calling statement
-- sees them have it now (`after`, NULL when none is left). Each a lookup by key: a join would read
-- all of claimant_firsts, a row per claimant and campaign, when it guessed few of them.
CREATE OR REPLACE FUNCTION claim_history_firsts(applied pg_snapshot, campaign integer)
RETURNS TABLE (campaign_key integer, claimant text, before timestamptz, after timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT p.campaign_key, p.claimant, p.before, p.after
    FROM (SELECT t.campaign_key, t.claimant,
                 (SELECT f.first_at FROM claimant_firsts AS f WHERE f.campaign_key = t.campaign_key AND f.claimant = t.claimant) AS before,
                 (SELECT min(c.claimed_at) FROM claims AS c WHERE c.claimant = t.claimant AND c.campaign_key = t.campaign_key AND NOT c.draw) AS after
            FROM (SELECT DISTINCT ch.campaign_key, ch.claimant FROM claim_history_changes(applied, campaign) AS ch WHERE ch.sign <> 0) AS t) AS p
   WHERE p.before IS DISTINCT FROM p.after;
$$;
