-- Custom SQL migration file, put your code below! --
-- drizzle-kit cannot express functions and triggers, so this file was created with `drizzle-kit generate --custom`.
--
-- Everything a campaign read needs that is derived from other rows is kept up to date here, inside
-- the writing transaction, whoever writes:
--   * incentives.total_claims / total_amount_claimed / total_usd_claimed follow the claims;
--   * campaigns.has_budget_left and campaigns.pays_only_whitelisted_tokens follow incentives and tokens;
--   * campaign_documents holds each campaign's list item and detail object, serialized once;
--   * campaign_set_version grows when the set of campaigns or a filtered attribute changes, so a
--     cached count stays valid exactly as long as nothing it depends on changed.
-- All triggers are statement-level with transition tables: a bulk load costs one refresh per statement.
-- A bulk loader may set `campaign_service.defer_refresh = on` for its transaction and call
-- refresh_campaigns(NULL) once at the end instead.

CREATE OR REPLACE FUNCTION claims_sync_incentive_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE incentives AS i
       SET total_claims = i.total_claims + d.claim_count,
           total_amount_claimed = i.total_amount_claimed + d.amount,
           total_usd_claimed = i.total_usd_claimed + d.usd
      FROM (SELECT campaign_key, incentive_position, count(*) AS claim_count, sum(amount) AS amount, sum(usd_value) AS usd
              FROM new_claims GROUP BY campaign_key, incentive_position) AS d
     WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE incentives AS i
       SET total_claims = i.total_claims - d.claim_count,
           total_amount_claimed = i.total_amount_claimed - d.amount,
           total_usd_claimed = i.total_usd_claimed - d.usd
      FROM (SELECT campaign_key, incentive_position, count(*) AS claim_count, sum(amount) AS amount, sum(usd_value) AS usd
              FROM old_claims GROUP BY campaign_key, incentive_position) AS d
     WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Existing rows (none outside a fresh database, but a migration must not assume it).
UPDATE incentives AS i SET total_usd_claimed = d.usd
  FROM (SELECT campaign_key, incentive_position, sum(usd_value) AS usd FROM claims GROUP BY 1, 2) AS d
 WHERE i.campaign_key = d.campaign_key AND i.position = d.incentive_position;
--> statement-breakpoint
DROP TRIGGER incentives_budget_after_insert ON incentives;
--> statement-breakpoint
DROP TRIGGER incentives_budget_after_update ON incentives;
--> statement-breakpoint
DROP TRIGGER incentives_budget_after_delete ON incentives;
--> statement-breakpoint
DROP FUNCTION incentives_sync_campaign_budget_left();
--> statement-breakpoint
INSERT INTO campaign_set_version (id, value) VALUES (1, 0);
--> statement-breakpoint
-- True while a bulk loader has deferred the derived state to one refresh_campaigns(NULL) at its end.
CREATE FUNCTION refresh_deferred() RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT coalesce(current_setting('campaign_service.defer_refresh', true), '') = 'on';
$$;
--> statement-breakpoint
CREATE FUNCTION bump_campaign_set_version() RETURNS void LANGUAGE sql AS $$
  UPDATE campaign_set_version SET value = value + 1 WHERE id = 1;
$$;
--> statement-breakpoint
-- The documents are JSON text assembled by concatenation, in the order of the API schemas and in
-- the spacing jsonb prints (`"key": value, ...`, the form the stored incentive fields come in).
-- Building them as jsonb instead costs three times as much, which a bulk load of 100,000 campaigns feels.

-- A JSON string (or null) for any text.
CREATE FUNCTION json_text(value text) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(to_json(value)::text, 'null');
$$;
--> statement-breakpoint
-- ISO 8601 in UTC with milliseconds, the format of JavaScript's Date.toISOString().
CREATE FUNCTION iso_utc(t timestamptz) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
$$;
--> statement-breakpoint
-- The variants that carry claim totals, remaining balance and token metadata next to their own fields.
CREATE FUNCTION incentive_has_live_fields(incentive_type text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT incentive_type IN ('ERC20Incentive', 'ERC20VariableIncentive', 'ERC20VariableCriteriaIncentive',
                            'ERC20VariableCriteriaIncentiveV2', 'ERC20PeggedIncentive',
                            'ERC20PeggedVariableCriteriaIncentive', 'ERC20PeggedVariableCriteriaIncentiveV2');
$$;
--> statement-breakpoint
-- Token metadata as the API shows it, or null for a token the service does not know.
CREATE FUNCTION token_metadata_json(t tokens) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN t.address IS NULL THEN 'null' ELSE
    '{"id": "' || t.id || '", "chainId": ' || t.chain_id || ', "address": "' || t.address
    || '", "decimals": ' || t.decimals || ', "name": ' || json_text(t.name) || ', "symbol": ' || json_text(t.symbol)
    || ', "imageUri": ' || json_text(t.image_uri) || '}' END;
$$;
--> statement-breakpoint
-- One incentive as the API shows it: `type`, the variant's stored fields, then the live fields.
CREATE FUNCTION incentive_json(i incentives, t tokens) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT '{' || concat_ws(', ',
    '"type": ' || json_text(i.type),
    nullif(substr(i.params::text, 2, length(i.params::text) - 2), ''),
    CASE WHEN incentive_has_live_fields(i.type) THEN
      '"claimedAmount": "' || i.total_amount_claimed || '", "totalClaims": "' || i.total_claims
      || '", "totalAmountClaimed": "' || i.total_amount_claimed
      || '", "remainingBalance": "' || greatest(coalesce(i.total_budget, 0) - i.total_amount_claimed, 0)
      || '", "metadata": ' || token_metadata_json(t)
    END) || '}';
$$;
--> statement-breakpoint
-- Rebuilds the derived state of the given campaigns (all of them when `keys` is NULL).
-- Written as joins of per-campaign aggregates rather than correlated subqueries: a handful of keys
-- become index lookups, a whole data set becomes hash joins (a bulk load rebuilds its indexes in the
-- same transaction, where the planner may not use them yet).
CREATE FUNCTION refresh_campaigns(keys integer[]) RETURNS void LANGUAGE plpgsql
  -- A whole data set sorts and hashes in memory rather than in temporary files; JIT only slows the small refreshes.
  SET jit = off SET work_mem = '64MB' AS $$
DECLARE
  flipped integer;
BEGIN
  IF refresh_deferred() THEN
    RETURN;
  END IF;
  IF keys IS NULL THEN
    keys := ARRAY(SELECT key FROM campaigns);
  ELSE
    keys := ARRAY(SELECT DISTINCT k FROM unnest(keys) AS k WHERE k IS NOT NULL);
  END IF;

  -- Tells campaigns_after_write() that this update is ours, not a write to react to.
  PERFORM set_config('campaign_service.refreshing', 'on', true);
  UPDATE campaigns AS c
     SET has_budget_left = s.has_budget_left,
         pays_only_whitelisted_tokens = s.pays_only_whitelisted_tokens
    FROM (SELECT t.key,
                 coalesce(bool_or(i.campaign_key IS NOT NULL
                                  AND NOT coalesce(i.total_claims >= i.claim_limit, false)
                                  AND NOT coalesce(i.total_amount_claimed >= i.total_budget, false)), false) AS has_budget_left,
                 NOT coalesce(bool_or(i.asset_address IS NOT NULL AND NOT coalesce(token.is_whitelisted, false)), false)
                   AS pays_only_whitelisted_tokens
            FROM unnest(keys) AS t(key)
            JOIN campaigns AS c2 ON c2.key = t.key
            LEFT JOIN incentives AS i ON i.campaign_key = t.key
            LEFT JOIN tokens AS token ON token.chain_id = c2.chain_id AND token.address = i.asset_address
           GROUP BY t.key) AS s
   WHERE c.key = s.key
     AND (c.has_budget_left, c.pays_only_whitelisted_tokens)
         IS DISTINCT FROM (s.has_budget_left, s.pays_only_whitelisted_tokens);
  GET DIAGNOSTICS flipped = ROW_COUNT;
  PERFORM set_config('campaign_service.refreshing', 'off', true);
  IF flipped > 0 THEN
    PERFORM bump_campaign_set_version();
  END IF;

  WITH targets AS MATERIALIZED (
    SELECT c.* FROM unnest(keys) AS t(key) JOIN campaigns AS c ON c.key = t.key
  ), inc AS (
    SELECT c.key,
           '[' || string_agg(incentive_json(i, t), ', ' ORDER BY i.position) || ']' AS incentives,
           count(*) AS incentive_count,
           sum(i.total_usd_claimed) AS usd_spend,
           sum(i.total_amount_claimed / 10::numeric ^ t.decimals) AS token_spend,
           round(sum(greatest(coalesce(i.total_budget, 0) - i.total_amount_claimed, 0) * t.price_usd / 10::numeric ^ t.decimals)
                   FILTER (WHERE t.price_usd IS NOT NULL AND i.total_budget IS NOT NULL), 2)::text AS available_budget_usd
      FROM targets AS c
      JOIN incentives AS i ON i.campaign_key = c.key
      LEFT JOIN tokens AS t ON t.chain_id = c.chain_id AND t.address = i.asset_address
     GROUP BY c.key
  ), st AS (
    SELECT s.campaign_key AS key,
           '[' || string_agg('{' || concat_ws(', ',
             '"chainId": ' || s.chain_id,
             '"claimant": "' || s.claimant || '"',
             '"signature": ' || json_text(s.signature),
             '"signatureName": ' || json_text(s.signature_name),
             '"signatureType": "' || s.signature_type || '"',
             '"actionType": ' || s.action_type,
             '"targetContract": "' || s.target_contract || '"',
             '"parameters": ' || s.parameters::text) || '}', ', ' ORDER BY s.position) || ']' AS steps
      FROM targets AS c
      JOIN action_steps AS s ON s.campaign_key = c.key
     GROUP BY s.campaign_key
  ), listed AS (
    SELECT x.allow_list_id, '[' || string_agg('"' || x.address || '"', ', ' ORDER BY x.address) || ']' AS addresses
      FROM allow_list_addresses AS x
     WHERE x.allow_list_id IN (SELECT allow_list_id FROM targets)
     GROUP BY x.allow_list_id
  ), al AS (
    SELECT a.id,
           '{"owner": "' || a.owner || '", "contractAddress": "' || a.contract_address || '", "type": "' || a.type
           || '", "addresses": ' || CASE WHEN a.type IN ('SimpleAllowList', 'SimpleDenyList')
                                         THEN coalesce(listed.addresses, '[]') ELSE 'null' END || '}' AS allow_list
      FROM allow_lists AS a
      LEFT JOIN listed ON listed.allow_list_id = a.id
     WHERE a.id IN (SELECT allow_list_id FROM targets)
  ), parts AS (
    SELECT c.*,
           coalesce(st.steps, '[]') AS steps,
           coalesce(inc.incentives, '[]') AS incentives,
           coalesce(inc.incentive_count, 0) AS incentive_count,
           coalesce(inc.usd_spend, 0) AS usd_spend,
           coalesce(inc.token_spend, 0) AS token_spend,
           inc.available_budget_usd,
           al.allow_list,
           '{"' || c.chain_id || '": "' || c.block_number || '"}' AS block_numbers,
           CASE WHEN c.action_claimant IS NOT NULL THEN
             '{' || concat_ws(', ',
               '"signature": ' || json_text(c.action_claimant->>'signature'),
               '"signatureName": ' || json_text(c.action_claimant->>'signatureName'),
               '"signatureType": ' || json_text(c.action_claimant->>'signatureType'),
               '"fieldIndex": ' || (c.action_claimant->'fieldIndex')::text,
               '"targetContractName": ' || json_text(named.name),
               '"targetContract": ' || json_text(c.action_claimant->>'targetContract'),
               '"chainId": ' || (c.action_claimant->'chainId')::text) || '}'
           END AS action_claimant_json
      FROM targets AS c
      LEFT JOIN inc ON inc.key = c.key
      LEFT JOIN st ON st.key = c.key
      LEFT JOIN al ON al.id = c.allow_list_id
      LEFT JOIN contracts AS named
        ON named.chain_id = (c.action_claimant->>'chainId')::integer
       AND named.address = c.action_claimant->>'targetContract'
  )
  INSERT INTO campaign_documents AS d (campaign_key, list_item, detail)
  SELECT key,
         '{' || concat_ws(', ',
           '"id": "' || public_id || '"',
           '"action": "' || action || '"',
           '"allowList": ' || coalesce(allow_list, 'null'),
           '"campaignIndex": "' || campaign_index || '"',
           '"budget": "' || budget || '"',
           '"incentiveCount": "' || incentive_count || '"',
           '"owner": "' || owner || '"',
           '"validator": "' || validator || '"',
           '"blockTimestamp": "' || block_timestamp || '"',
           '"txHash": ' || json_text(tx_hash),
           '"chainId": ' || chain_id,
           '"actionSteps": ' || steps,
           '"protocolFee": "' || protocol_fee || '"',
           '"maxParticipants": "' || max_participants || '"',
           '"incentives": ' || incentives,
           '"createdAtBlockTimestamp": "' || block_timestamp || '"',
           '"createdAtChainBlockNumbers": ' || block_numbers,
           '"usdSpend": ' || usd_spend::float8,
           '"tokenSpend": ' || token_spend::float8,
           '"availableBudgetUsd": ' || json_text(available_budget_usd),
           '"templateId": ' || json_text(template_id),
           '"actionTemplateId": ' || json_text(action_template_id::text),
           '"nftImageUri": ' || json_text(nft_image_uri),
           '"nftName": ' || json_text(nft_name),
           '"campaignName": ' || json_text(campaign_name),
           '"projectImageUri": ' || json_text(project_image_uri),
           '"tokenImageUri": ' || json_text(token_image_uri)) || '}',
         '{' || concat_ws(', ',
           '"id": "' || public_id || '"',
           '"actionSteps": ' || steps,
           -- The detail always has an allow list; a campaign without one is open to everyone.
           '"allowList": ' || coalesce(allow_list, '{"owner": "' || owner
             || '", "contractAddress": "0x0000000000000000000000000000000000000000", "type": "OpenAllowList", "addresses": null}'),
           '"protocolFee": "' || protocol_fee || '"',
           '"maxParticipants": "' || max_participants || '"',
           '"incentives": ' || incentives,
           '"owner": "' || owner || '"',
           '"createdAt": "' || iso_utc(to_timestamp(block_timestamp)) || '"',
           '"budget": "' || budget || '"',
           '"actionClaimant": ' || action_claimant_json,
           '"createdAtBlockchainNumbers": ' || block_numbers,
           '"availableBudgetUsd": ' || json_text(available_budget_usd),
           '"templateId": ' || json_text(template_id),
           '"actionTemplateId": ' || json_text(action_template_id::text),
           '"nftImageUri": ' || json_text(nft_image_uri),
           '"nftName": ' || json_text(nft_name),
           '"campaignName": ' || json_text(campaign_name),
           '"nftMetadataId": ' || json_text(nft_metadata_id),
           '"projectImageUri": ' || json_text(project_image_uri),
           '"tokenImageUri": ' || json_text(token_image_uri),
           '"startTime": ' || json_text(iso_utc(start_time)),
           '"endTime": ' || json_text(iso_utc(end_time))) || '}'
    FROM parts
  ON CONFLICT (campaign_key) DO UPDATE SET list_item = excluded.list_item, detail = excluded.detail
   WHERE (d.list_item, d.detail) IS DISTINCT FROM (excluded.list_item, excluded.detail);
END
$$;
--> statement-breakpoint
-- Campaign rows written from outside. The derived flags refresh_campaigns() itself updates need
-- no second refresh.
CREATE FUNCTION campaigns_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  IF coalesce(current_setting('campaign_service.refreshing', true), '') = 'on' THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF EXISTS (SELECT 1 FROM old_rows) THEN PERFORM bump_campaign_set_version(); END IF;
  ELSE
    IF EXISTS (SELECT 1 FROM new_rows) THEN
      PERFORM bump_campaign_set_version();
      PERFORM refresh_campaigns(ARRAY(SELECT key FROM new_rows));
    END IF;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER campaigns_after_insert AFTER INSERT ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_after_write();
--> statement-breakpoint
CREATE TRIGGER campaigns_after_update AFTER UPDATE ON campaigns
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_after_write();
--> statement-breakpoint
CREATE TRIGGER campaigns_after_delete AFTER DELETE ON campaigns
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION campaigns_after_write();
--> statement-breakpoint
-- Incentives: claim totals change on every claim (refresh only); a new, removed or re-typed
-- incentive also changes what the token filters match (new version).
CREATE FUNCTION incentives_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  keys integer[];
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    keys := ARRAY(SELECT DISTINCT campaign_key FROM new_rows);
  ELSIF TG_OP = 'DELETE' THEN
    keys := ARRAY(SELECT DISTINCT campaign_key FROM old_rows);
  ELSE
    keys := ARRAY(SELECT campaign_key FROM new_rows UNION SELECT campaign_key FROM old_rows);
  END IF;
  IF cardinality(keys) = 0 THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'UPDATE' THEN
    PERFORM bump_campaign_set_version();
  ELSIF EXISTS (SELECT 1 FROM old_rows AS o FULL JOIN new_rows AS n USING (campaign_key, position)
                 WHERE (o.type, o.params) IS DISTINCT FROM (n.type, n.params)) THEN
    PERFORM bump_campaign_set_version();
  END IF;
  PERFORM refresh_campaigns(keys);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER incentives_after_insert AFTER INSERT ON incentives
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_after_write();
--> statement-breakpoint
CREATE TRIGGER incentives_after_update AFTER UPDATE ON incentives
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_after_write();
--> statement-breakpoint
CREATE TRIGGER incentives_after_delete AFTER DELETE ON incentives
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION incentives_after_write();
--> statement-breakpoint
-- Action steps are filtered on (targetContract, collection tokens) and shown in the documents.
CREATE FUNCTION action_steps_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  keys integer[];
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    keys := ARRAY(SELECT DISTINCT campaign_key FROM new_rows);
  ELSIF TG_OP = 'DELETE' THEN
    keys := ARRAY(SELECT DISTINCT campaign_key FROM old_rows);
  ELSE
    keys := ARRAY(SELECT campaign_key FROM new_rows UNION SELECT campaign_key FROM old_rows);
  END IF;
  IF cardinality(keys) > 0 THEN
    PERFORM bump_campaign_set_version();
    PERFORM refresh_campaigns(keys);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER action_steps_after_insert AFTER INSERT ON action_steps
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION action_steps_after_write();
--> statement-breakpoint
CREATE TRIGGER action_steps_after_update AFTER UPDATE ON action_steps
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION action_steps_after_write();
--> statement-breakpoint
CREATE TRIGGER action_steps_after_delete AFTER DELETE ON action_steps
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION action_steps_after_write();
--> statement-breakpoint
-- Allow lists and their addresses appear in the documents of the campaigns that use them.
CREATE FUNCTION allow_lists_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  PERFORM refresh_campaigns(ARRAY(SELECT c.key FROM campaigns AS c WHERE c.allow_list_id IN (SELECT id FROM changed_rows)));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER allow_lists_after_update AFTER UPDATE ON allow_lists
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION allow_lists_after_write();
--> statement-breakpoint
CREATE FUNCTION allow_list_addresses_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  PERFORM refresh_campaigns(ARRAY(SELECT c.key FROM campaigns AS c
                                   WHERE c.allow_list_id IN (SELECT allow_list_id FROM changed_rows)));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER allow_list_addresses_after_insert AFTER INSERT ON allow_list_addresses
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION allow_list_addresses_after_write();
--> statement-breakpoint
CREATE TRIGGER allow_list_addresses_after_update AFTER UPDATE ON allow_list_addresses
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION allow_list_addresses_after_write();
--> statement-breakpoint
CREATE TRIGGER allow_list_addresses_after_delete AFTER DELETE ON allow_list_addresses
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION allow_list_addresses_after_write();
--> statement-breakpoint
-- Tokens: metadata, whitelist and price appear in (or decide) the documents of the campaigns paying them.
CREATE FUNCTION tokens_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  PERFORM refresh_campaigns(ARRAY(
    SELECT DISTINCT i.campaign_key
      FROM changed_rows AS t
      JOIN incentives AS i ON i.asset_address = t.address
      JOIN campaigns AS c ON c.key = i.campaign_key AND c.chain_id = t.chain_id));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER tokens_after_insert AFTER INSERT ON tokens
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION tokens_after_write();
--> statement-breakpoint
CREATE TRIGGER tokens_after_update AFTER UPDATE ON tokens
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION tokens_after_write();
--> statement-breakpoint
CREATE TRIGGER tokens_after_delete AFTER DELETE ON tokens
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION tokens_after_write();
--> statement-breakpoint
-- Named contracts: the detail's actionClaimant.targetContractName.
CREATE FUNCTION contracts_after_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN NULL;
  END IF;
  PERFORM refresh_campaigns(ARRAY(
    SELECT c.key FROM campaigns AS c JOIN changed_rows AS n
        ON n.chain_id = (c.action_claimant->>'chainId')::integer AND n.address = c.action_claimant->>'targetContract'));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER contracts_after_insert AFTER INSERT ON contracts
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION contracts_after_write();
--> statement-breakpoint
CREATE TRIGGER contracts_after_update AFTER UPDATE ON contracts
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION contracts_after_write();
--> statement-breakpoint
CREATE TRIGGER contracts_after_delete AFTER DELETE ON contracts
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION contracts_after_write();
