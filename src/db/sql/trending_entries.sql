-- What a trending page shows of each of `keys` (campaign keys, in the page's order), and of
-- `claimant`'s standing in it (NULLs without one), as a JSON array of objects in that order.
--
-- PL/pgSQL, not SQL, for its plan: PostgreSQL keeps a PL/pgSQL function's query plans for the life
-- of the server connection (PostgreSQL 15 plans a SQL function's body on every call). This query
-- joins eight tables and two lateral subqueries, and planning it costs more than running it
-- does; behind PgBouncer in transaction mode the API cannot keep a named prepared statement
-- across transactions, so this is where the plan lives. Its callers pass the keys: the trending and
-- reward-kit operations, for entries they build and keep (src/services/entry-texts.ts).
--
-- trending_entry_versions() versions an entry by the rows read here (all but the claimant's): a
-- table joined here must be joined there too, or a kept entry would miss its changes.
CREATE OR REPLACE FUNCTION trending_entries(keys integer[], claimant text) RETURNS json
LANGUAGE plpgsql STABLE
-- Always the cached generic plan: with a constant claimant (NULL) or ID, a custom plan looks cheaper on
-- paper, so the automatic choice would plan again on every call, which is what this function saves.
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN (
    SELECT coalesce(json_agg(row_to_json(e) ORDER BY e.ord), '[]')
      FROM (
        SELECT page.ord, c.key, c.public_id, c.chain_id, c.tx_hash, c.campaign_name, c.nft_image_uri, c.nft_name, c.token_image_uri,
               c.block_timestamp::text AS block_timestamp, iso_utc(c.start_time) AS start_time, iso_utc(c.end_time) AS end_time,
               t.id::text AS template_id, p.slug AS project_slug, t.action_type,
               p.image_uri AS project_image, t.description AS template_description, t.category,
               p.url AS project_url, p.verification_level,
               totals.claim_count,
               a.type AS allow_list_type,
               st.claimed AS claimant_claimed, st.listed AS claimant_listed, st.member AS claimant_member,
               st.signature_incentive_id, st.signature, st.signature_referrer,
               k.symbol AS action_token_symbol, k.address AS action_token_address, k.image_uri AS action_token_image,
               k.decimals AS action_token_decimals, k.market_cap_usd::float8 AS action_token_market_cap,
               k.price_change_24h_pct::float8 AS action_token_price_change, k.volume_24h_usd::float8 AS action_token_volume,
               k.price_usd::float8 AS action_token_price, k.holders::float8 AS action_token_holders,
               (SELECT coalesce(json_agg(x ORDER BY x.position), '[]') FROM (
                  SELECT i.position, i.type, i.params, i.total_claims::text AS total_claims,
                         i.total_amount_claimed::text AS total_amount_claimed, i.claim_limit::text AS claim_limit,
                         i.total_budget::text AS total_budget,
                         o.id::text AS token_id, o.chain_id AS token_chain_id, o.address AS token_address, o.decimals AS token_decimals,
                         o.name AS token_name, o.symbol AS token_symbol, o.image_uri AS token_image_uri, o.price_usd::text AS token_price_usd
                    FROM incentives AS i
                    LEFT JOIN tokens AS o ON o.chain_id = c.chain_id AND o.address = i.asset_address
                   WHERE i.campaign_key = c.key
                ) AS x) AS incentives
          FROM unnest(keys) WITH ORDINALITY AS page(key, ord)
          JOIN campaigns AS c ON c.key = page.key
          LEFT JOIN action_templates AS t ON t.id = c.action_template_id
          LEFT JOIN projects AS p ON p.id = t.project_id
          LEFT JOIN allow_lists AS a ON a.id = c.allow_list_id
          LEFT JOIN tokens AS k ON k.chain_id = c.chain_id AND k.address = c.action_token_address
          LEFT JOIN LATERAL (
            SELECT coalesce(sum(i.total_claims), 0)::integer AS claim_count
              FROM incentives AS i
             WHERE i.campaign_key = c.key
          ) AS totals ON true
          LEFT JOIN claimant_standing(keys, claimant) AS st ON st.key = c.key
      ) AS e
  );
END;
$$;
