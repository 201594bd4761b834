import Fastify from 'fastify';
import pg from 'pg';

/**
 * The "straightforward implementation" the performance targets are ratios of, measured in the same
 * run as the service: bare Fastify over a pg pool of 10, building each answer per request the
 * obvious way (json_agg of the page with its incentives and steps plus a count; a plain
 * aggregation of the day's claims for trending). Usage: node baseline-server.js <database-url> <port>
 */
const [databaseUrl = '', port = '0'] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });

const listQuery = `
  SELECT json_build_object(
    'campaigns', coalesce(json_agg(page.item ORDER BY page.block_timestamp DESC, page.public_id), '[]'::json),
    'totalCampaigns', (SELECT count(*) FROM campaigns WHERE pays_only_whitelisted_tokens)) AS body
  FROM (
    SELECT c.block_timestamp, c.public_id, json_build_object(
      'id', c.public_id, 'action', c.action, 'owner', c.owner, 'budget', c.budget, 'validator', c.validator,
      'chainId', c.chain_id, 'txHash', c.tx_hash, 'blockTimestamp', c.block_timestamp::text,
      'protocolFee', c.protocol_fee::text, 'maxParticipants', c.max_participants::text,
      'campaignName', c.campaign_name, 'isActive', c.has_budget_left,
      'incentives', (SELECT json_agg(jsonb_build_object('type', i.type) || i.params || jsonb_build_object(
                        'totalClaims', i.total_claims::text, 'totalAmountClaimed', i.total_amount_claimed::text,
                        'metadata', CASE WHEN t.address IS NULL THEN NULL ELSE json_build_object(
                          'id', t.id, 'chainId', t.chain_id, 'address', t.address, 'decimals', t.decimals,
                          'name', t.name, 'symbol', t.symbol, 'imageUri', t.image_uri) END) ORDER BY i.position)
                       FROM incentives i LEFT JOIN tokens t ON t.chain_id = c.chain_id AND t.address = i.asset_address
                      WHERE i.campaign_key = c.key),
      'actionSteps', (SELECT json_agg(json_build_object(
                        'chainId', s.chain_id, 'signature', s.signature, 'signatureName', s.signature_name,
                        'signatureType', s.signature_type, 'actionType', s.action_type,
                        'targetContract', s.target_contract, 'parameters', s.parameters) ORDER BY s.position)
                       FROM action_steps s WHERE s.campaign_key = c.key)) AS item
    FROM campaigns c
    WHERE c.pays_only_whitelisted_tokens
    ORDER BY c.block_timestamp DESC NULLS LAST, c.public_id
    LIMIT $1
  ) AS page`;

const trendingQuery = `
  SELECT coalesce(json_agg(t ORDER BY t.usd DESC, t.id), '[]'::json) AS body FROM (
    SELECT c.public_id AS id, sum(w.usd_value)::float8 AS usd, count(*) AS claims
      FROM claims w JOIN campaigns c ON c.key = w.campaign_key
     WHERE w.claimed_at > now() - interval '24 hours'
     GROUP BY c.public_id ORDER BY usd DESC, c.public_id LIMIT 10) AS t`;

const app = Fastify({ logger: false });
const answer = async (text: string, values: unknown[]) => {
  const { rows } = await pool.query<{ body: unknown }>(text, values);
  return rows[0]?.body;
};
app.get('/baseline/list', async () => answer(listQuery, [10]));
app.get('/baseline/list100', async () => answer(listQuery, [100]));
app.get('/baseline/trending', async () => answer(trendingQuery, []));
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write('ready\n');
