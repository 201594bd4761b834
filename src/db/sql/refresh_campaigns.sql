-- Rebuilds the derived state of the given campaigns (all of them when `keys` is NULL): the flags
-- (refresh_campaign_flags()), the campaign_live row of the fields claims change
-- (refresh_campaign_live()), and the campaign_documents row. The documents leave a placeholder
-- (U+0001) where the fields claims change go: readers fill them in from campaign_live. The campaigns'
-- trending entries get new versions (bump_entry_versions()). Skipped while a bulk
-- loader has deferred it (refresh_deferred()); that loader calls refresh_campaigns(NULL) at its end.
-- Written as joins of per-campaign aggregates rather than correlated subqueries: a handful of keys
-- become index lookups, a whole data set becomes hash joins (a bulk load rebuilds its indexes in the
-- same transaction, where the planner may not use them yet).
CREATE OR REPLACE FUNCTION refresh_campaigns(keys integer[]) RETURNS void LANGUAGE plpgsql
  -- A whole data set sorts and hashes in memory rather than in temporary files; JIT only slows the small refreshes.
  SET jit = off SET work_mem = '64MB' AS $$
BEGIN
  IF refresh_deferred() THEN
    RETURN;
  END IF;
  IF keys IS NULL THEN
    keys := ARRAY(SELECT key FROM campaigns);
  ELSE
    keys := ARRAY(SELECT DISTINCT k FROM unnest(keys) AS k WHERE k IS NOT NULL);
  END IF;

  -- The flags and the fields claims change: the documents below leave placeholders for the latter.
  PERFORM refresh_campaign_flags(keys);
  PERFORM refresh_campaign_live(keys);
  PERFORM bump_entry_versions(keys);

  WITH targets AS MATERIALIZED (
    SELECT c.* FROM unnest(keys) AS t(key) JOIN campaigns AS c ON c.key = t.key
  ), inc AS (
    SELECT c.key,
           '[' || string_agg(incentive_json(i, t), ',' ORDER BY i.position) || ']' AS incentives,
           count(*) AS incentive_count
      FROM targets AS c
      JOIN incentives AS i ON i.campaign_key = c.key
      LEFT JOIN tokens AS t ON t.chain_id = c.chain_id AND t.address = i.asset_address
     GROUP BY c.key
  ), st AS (
    SELECT s.campaign_key AS key,
           '[' || string_agg('{' || concat_ws(',',
             '"chainId":' || s.chain_id,
             '"claimant":"' || s.claimant || '"',
             '"signature":' || json_text(s.signature),
             '"signatureName":' || json_text(s.signature_name),
             '"signatureType":"' || s.signature_type || '"',
             '"actionType":' || s.action_type,
             '"targetContract":"' || s.target_contract || '"',
             '"parameters":' || json_compact(s.parameters)) || '}', ',' ORDER BY s.position) || ']' AS steps
      FROM targets AS c
      JOIN action_steps AS s ON s.campaign_key = c.key
     GROUP BY s.campaign_key
  ), listed AS (
    SELECT x.allow_list_id, '[' || string_agg('"' || x.address || '"', ',' ORDER BY x.address) || ']' AS addresses
      FROM allow_list_addresses AS x
     WHERE x.allow_list_id IN (SELECT allow_list_id FROM targets)
     GROUP BY x.allow_list_id
  ), al AS (
    SELECT a.id,
           '{"owner":"' || a.owner || '","contractAddress":"' || a.contract_address || '","type":"' || a.type
           || '","addresses":' || CASE WHEN a.type IN ('SimpleAllowList', 'SimpleDenyList')
                                         THEN coalesce(listed.addresses, '[]') ELSE 'null' END || '}' AS allow_list
      FROM allow_lists AS a
      LEFT JOIN listed ON listed.allow_list_id = a.id
     WHERE a.id IN (SELECT allow_list_id FROM targets)
  ), parts AS (
    SELECT c.*,
           coalesce(st.steps, '[]') AS steps,
           coalesce(inc.incentives, '[]') AS incentives,
           coalesce(inc.incentive_count, 0) AS incentive_count,
           al.allow_list,
           '{"' || c.chain_id || '":"' || c.block_number || '"}' AS block_numbers,
           CASE WHEN c.action_claimant IS NOT NULL THEN
             '{' || concat_ws(',',
               '"signature":' || json_text(c.action_claimant->>'signature'),
               '"signatureName":' || json_text(c.action_claimant->>'signatureName'),
               '"signatureType":' || json_text(c.action_claimant->>'signatureType'),
               '"fieldIndex":' || (c.action_claimant->'fieldIndex')::text,
               '"targetContractName":' || json_text(named.name),
               '"targetContract":' || json_text(c.action_claimant->>'targetContract'),
               '"chainId":' || (c.action_claimant->'chainId')::text) || '}'
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
         '{' || concat_ws(',',
           '"id":"' || public_id || '"',
           '"action":"' || action || '"',
           '"allowList":' || coalesce(allow_list, 'null'),
           '"campaignIndex":"' || campaign_index || '"',
           '"budget":"' || budget || '"',
           '"incentiveCount":"' || incentive_count || '"',
           '"owner":"' || owner || '"',
           '"validator":"' || validator || '"',
           '"blockTimestamp":"' || block_timestamp || '"',
           '"txHash":' || json_text(tx_hash),
           '"chainId":' || chain_id,
           '"actionSteps":' || steps,
           '"protocolFee":"' || protocol_fee || '"',
           '"maxParticipants":"' || max_participants || '"',
           '"incentives":' || incentives,
           '"createdAtBlockTimestamp":"' || block_timestamp || '"',
           '"createdAtChainBlockNumbers":' || block_numbers,
           -- usdSpend, tokenSpend and availableBudgetUsd: campaign_live.list_totals.
           chr(1),
           '"templateId":' || json_text(template_id),
           '"actionTemplateId":' || json_text(action_template_id::text),
           '"nftImageUri":' || json_text(nft_image_uri),
           '"nftName":' || json_text(nft_name),
           '"campaignName":' || json_text(campaign_name),
           '"projectImageUri":' || json_text(project_image_uri),
           '"tokenImageUri":' || json_text(token_image_uri)) || '}',
         '{' || concat_ws(',',
           '"id":"' || public_id || '"',
           '"actionSteps":' || steps,
           -- The detail always has an allow list; a campaign without one is open to everyone.
           '"allowList":' || coalesce(allow_list, '{"owner":"' || owner
             || '","contractAddress":"0x0000000000000000000000000000000000000000","type":"OpenAllowList","addresses":null}'),
           '"protocolFee":"' || protocol_fee || '"',
           '"maxParticipants":"' || max_participants || '"',
           '"incentives":' || incentives,
           '"owner":"' || owner || '"',
           '"createdAt":"' || iso_utc(to_timestamp(block_timestamp)) || '"',
           '"budget":"' || budget || '"',
           '"actionClaimant":' || action_claimant_json,
           '"createdAtBlockchainNumbers":' || block_numbers,
           -- availableBudgetUsd: campaign_live.detail_totals.
           chr(1),
           '"templateId":' || json_text(template_id),
           '"actionTemplateId":' || json_text(action_template_id::text),
           '"nftImageUri":' || json_text(nft_image_uri),
           '"nftName":' || json_text(nft_name),
           '"campaignName":' || json_text(campaign_name),
           '"nftMetadataId":' || json_text(nft_metadata_id),
           '"projectImageUri":' || json_text(project_image_uri),
           '"tokenImageUri":' || json_text(token_image_uri),
           '"startTime":' || json_text(iso_utc(start_time)),
           '"endTime":' || json_text(iso_utc(end_time))) || '}'
    FROM parts
  ON CONFLICT (campaign_key) DO UPDATE SET list_item = excluded.list_item, detail = excluded.detail
   WHERE (d.list_item, d.detail) IS DISTINCT FROM (excluded.list_item, excluded.detail);
END
$$;
