-- The fields of an incentive that every claim changes, as they follow `metadata`'s predecessors in
-- the API (see incentive_json): kept in campaign_live, apart from the stored documents, so that a
-- claim rewrites this short text rather than its campaign's whole list item and detail. An
-- ERC20Incentive's `limit` is the claims it has left, as the API describes the field: its limit() less its claims.
-- remainingBalance is what it holds (total_budget is the chain's balance plus what was paid, when read).
-- A RAFFLE's claims are its entries, as claims() counts them: its draw is no claim (claims.draw).
-- STABLE, not IMMUTABLE: `text || numeric` is stable, and a function declared more strictly than its
-- body is never inlined; planning the body on every call made it cost ten times the inlined form.
CREATE OR REPLACE FUNCTION incentive_live_json(i incentives) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN i.type = 'ERC20Incentive' AND i.params ? 'limit'
              THEN '"limit":"' || greatest((i.params->>'limit')::numeric - i.total_claims, 0) || '",' ELSE '' END
    || '"claimedAmount":"' || i.total_amount_claimed || '","totalClaims":"' || i.total_claims
    || '","totalAmountClaimed":"' || i.total_amount_claimed
    || '","remainingBalance":"' || greatest(coalesce(i.total_budget, 0) - i.total_amount_claimed, 0) || '"';
$$;
