-- GET /reward-kit without filters but the token whitelist (what a wallet asks): the claimant's three
-- lists of at most `max_each` campaign keys, each with its entry version and the claimant's standing,
-- the campaigns and incentives of its unused signatures, and the USD value of all its claims. Rows,
-- by `list`: 'totals' (always, first: `claimed_usd`, and what a kept copy of the profile is checked
-- against: reward_profile_state() of the listed campaigns, the snapshot all of it was read in, for
-- claimant_changed_since(), and, in `valid_until_ms`, the next instant a campaign starts or ends), then 'claimed', 'claimable' and 'active' in
-- their orders, then one 'signature' row per unused signature on a claimable campaign (its
-- incentive's position, incentive_position(), in `signature_incentive_id`). The lists are those of the API's statements for the
-- filtered profile (src/repositories/reward-kit.repository.ts): claimed and claimable by the
-- claimant's latest claim or signature, active ones newest first; versions and standing as
-- trending_entry_versions() and claimant_standing() give them.
--
-- One call instead of six statements: the claimant's claims and unused signatures are read once,
-- and say `claimed` and the signature of the standing without a lookup per campaign. PL/pgSQL for
-- its plans, kept per server connection: the active list's statement, planned per claimant, costs
-- more to plan than to run.
CREATE OR REPLACE FUNCTION reward_profile(claimant text, at timestamptz, whitelisted_only boolean, max_each integer)
RETURNS TABLE (list text, key integer, version text, claimant_claimed boolean, claimant_listed boolean, claimant_member boolean,
               signature_incentive_id smallint, signature text, signature_referrer text, claimed_usd text,
               state text, snapshot text, valid_until_ms float8)
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: each list reads the claimant's own rows through their index, whoever it is.
-- No JIT: the active list's index walk is priced as if it read the whole index (it stops after
-- `max_each`), and compiling the plan would cost many times what running it does.
SET plan_cache_mode = force_generic_plan SET jit = off AS $$
#variable_conflict use_column
DECLARE
  shared text := (SELECT s.value::text FROM entry_shared_version AS s WHERE s.id = 1);
BEGIN
  RETURN QUERY
  WITH claimed AS MATERIALIZED (
    SELECT w.campaign_key, max(w.claimed_at) AS latest, sum(w.usd_value) AS usd
      FROM claims AS w WHERE w.claimant = reward_profile.claimant GROUP BY w.campaign_key
  ), unused AS MATERIALIZED (
    SELECT g.id, g.campaign_key, g.incentive_id, g.signature, g.referrer
      FROM claim_signatures AS g WHERE g.claimant = reward_profile.claimant AND NOT g.used
  ), signed AS MATERIALIZED (
    SELECT u.campaign_key, max(u.id) AS latest FROM unused AS u GROUP BY u.campaign_key
  ), first_unused AS MATERIALIZED (
    -- The standing's signature: the oldest unused one of each campaign.
    SELECT DISTINCT ON (u.campaign_key) u.campaign_key, u.incentive_id, u.signature, u.referrer
      FROM unused AS u ORDER BY u.campaign_key, u.id
  ), lists AS MATERIALIZED (
    SELECT 1 AS list_no, row_number() OVER () AS ord, claimed_page.* FROM (
      SELECT c.key, c.allow_list_id, al.access_list_id FROM claimed AS m JOIN campaigns AS c ON c.key = m.campaign_key
        LEFT JOIN allow_lists AS al ON al.id = c.allow_list_id
       WHERE (c.pays_only_whitelisted_tokens OR NOT whitelisted_only)
       ORDER BY m.latest DESC, c.public_id LIMIT max_each) AS claimed_page
    UNION ALL
    SELECT 2, row_number() OVER (), claimable_page.* FROM (
      SELECT c.key, c.allow_list_id, al.access_list_id FROM signed AS m JOIN campaigns AS c ON c.key = m.campaign_key
        LEFT JOIN allow_lists AS al ON al.id = c.allow_list_id
       WHERE (c.pays_only_whitelisted_tokens OR NOT whitelisted_only)
         AND campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, at)
       ORDER BY m.latest DESC, c.public_id LIMIT max_each) AS claimable_page
    UNION ALL
    SELECT 3, row_number() OVER (), active_page.* FROM (
      SELECT c.key, c.allow_list_id, al.access_list_id FROM campaigns AS c
        LEFT JOIN allow_lists AS al ON al.id = c.allow_list_id
       WHERE (c.pays_only_whitelisted_tokens OR NOT whitelisted_only)
         AND campaign_is_active_at(c.start_time, c.end_time, c.has_budget_left, at)
         AND c.key NOT IN (SELECT m.campaign_key FROM claimed AS m)
         AND c.key NOT IN (SELECT m.campaign_key FROM signed AS m)
         -- The claimant may claim under the allow list: an allow list lists it, a deny list does not, or its access list has it.
         AND (c.allow_list_id IS NULL OR EXISTS (
               SELECT 1 FROM allow_lists AS a WHERE a.id = c.allow_list_id AND CASE a.type
                 WHEN 'OpenAllowList' THEN true
                 WHEN 'SimpleAllowList' THEN EXISTS (SELECT 1 FROM allow_list_addresses AS x
                                                      WHERE x.allow_list_id = a.id AND x.address = reward_profile.claimant)
                 WHEN 'SimpleDenyList' THEN NOT EXISTS (SELECT 1 FROM allow_list_addresses AS x
                                                         WHERE x.allow_list_id = a.id AND x.address = reward_profile.claimant)
                 ELSE EXISTS (SELECT 1 FROM access_list_members AS x
                               WHERE x.access_list_id = a.access_list_id AND x.address = reward_profile.claimant)
               END))
       ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id LIMIT max_each) AS active_page
  )
  SELECT 'totals', NULL::integer, NULL::text, NULL::boolean, NULL::boolean, NULL::boolean, NULL::smallint, NULL::text, NULL::text,
         (SELECT coalesce(sum(m.usd), 0)::text FROM claimed AS m),
         reward_profile_state(ARRAY(SELECT l.key FROM lists AS l)),
         pg_current_snapshot()::text,
         -- Milliseconds since the epoch: drivers differ in how they hand back a timestamptz, not a float8.
         (EXTRACT(EPOCH FROM campaigns_next_start_or_end(at)) * 1000)::float8
  UNION ALL
  (SELECT CASE l.list_no WHEN 1 THEN 'claimed' WHEN 2 THEN 'claimable' ELSE 'active' END,
          l.key, v.version::text || ':' || shared,
          m.campaign_key IS NOT NULL, listed.found IS NOT NULL, member.found IS NOT NULL,
          s.incentive_id, s.signature, s.referrer, NULL::text, NULL::text, NULL::text, NULL::float8
     FROM lists AS l
     JOIN entry_versions AS v ON v.campaign_key = l.key
     LEFT JOIN claimed AS m ON m.campaign_key = l.key
     LEFT JOIN first_unused AS s ON s.campaign_key = l.key
     -- Lookups per campaign, as LATERAL with LIMIT: as EXISTS in the select list, the planner may hash
     -- the whole of access_list_members instead, on every profile.
     LEFT JOIN LATERAL (SELECT true AS found FROM allow_list_addresses AS x
                         WHERE x.allow_list_id = l.allow_list_id AND x.address = reward_profile.claimant LIMIT 1) AS listed ON true
     LEFT JOIN LATERAL (SELECT true AS found FROM access_list_members AS x
                         WHERE x.access_list_id = l.access_list_id AND x.address = reward_profile.claimant LIMIT 1) AS member ON true
    ORDER BY l.list_no, l.ord)
  UNION ALL
  (SELECT 'signature', u.campaign_key, NULL, NULL, NULL, NULL, incentive_position(u.campaign_key, u.incentive_id)::smallint, NULL, NULL, NULL, NULL, NULL, NULL
     FROM unused AS u WHERE u.campaign_key IN (SELECT l.key FROM lists AS l WHERE l.list_no = 2));
END;
$$;
