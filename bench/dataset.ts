import { spawn } from 'node:child_process';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase, queryRows } from '../src/db/client.js';
import { encodeCursor } from '../src/keyset-cursor.js';
import { createApiTokensRepository } from '../src/repositories/api-tokens.repository.js';
import { activityCursorScope } from '../src/routes/explore.js';

/**
 * The benchmark's data: a database per size on the benchmark server, filled by the production
 * build of the data generator, reused while its claims are recent enough for the trending windows.
 */
export interface DatasetSize {
  campaigns: number;
  claims: number;
}

/** Older than this, the last hour of claims thins out and trending would measure an emptier window. */
const FRESH_FOR_MS = 30 * 60 * 1000;

export function datasetUrl(baseUrl: string, size: DatasetSize): string {
  const url = new URL(baseUrl);
  url.pathname = `/${url.pathname.slice(1) || 'campaigns_bench'}_${size.campaigns}`;
  return url.toString();
}

export async function ensureDataset(url: string, size: DatasetSize, reseed: boolean, log: (line: string) => void) {
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).toString() });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  // Always: a data set reused from an older build still needs the SQL functions this build calls.
  await run('node', ['dist/cli/migrate.js'], { DATABASE_URL: url });
  if (!reseed && (await isFresh(url, size))) {
    log(`reusing ${name} (${size.campaigns} campaigns, ${size.claims} claims)`);
    return;
  }
  log(`seeding ${name}: ${size.campaigns} campaigns, ${size.claims} claims`);
  await run('node', ['--max-semi-space-size=64', 'dist/cli/seed.js', '--reset', '--campaigns', String(size.campaigns), '--claims', String(size.claims)], {
    DATABASE_URL: url,
  });
}

async function isFresh(url: string, size: DatasetSize): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ campaigns: string; claims: string; newest: Date | null; signatures: string }>(
      // known_signatures: a data set seeded before the newest tables existed is not reused.
      `SELECT (SELECT count(*) FROM campaigns) AS campaigns, (SELECT count(*) FROM claims) AS claims,
              (SELECT max(claimed_at) FROM claims) AS newest, (SELECT count(*) FROM known_signatures) AS signatures`,
    );
    const [row] = rows;
    return (
      row !== undefined &&
      Number(row.campaigns) === size.campaigns &&
      Number(row.claims) === size.claims &&
      Number(row.signatures) > 0 &&
      row.newest !== null &&
      Date.now() - row.newest.getTime() < FRESH_FOR_MS
    );
  } catch {
    return false; // not seeded
  } finally {
    await client.end();
  }
}

function run(command: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

/** Real values for the scenarios' parameters, read from the dataset. */
export interface ScenarioParameters {
  owner: string;
  token: string;
  targetContract: { chainId: number; address: string };
  campaignIds: string[];
  claimant: string;
  bearerToken: string;
  /** The campaign with the most claims, the deepest page of its activity, and the cursor of that page. */
  busiest: { id: string; deepPage: number; deepCursor: string };
}

/** How deep the activity scenarios page: page 20,000 of 10, or the busiest campaign's last page. */
const ACTIVITY_DEEP_PAGE = 20_000;

export async function sampleParameters(url: string): Promise<ScenarioParameters> {
  const database = await openDatabase({
    DATABASE_URL: url,
    PGLITE_DATA_DIR: 'memory://',
    DB_POOL_MAX: 2,
    DB_STATEMENT_TIMEOUT_MS: 60_000,
    DB_CONNECT_TIMEOUT_MS: 5_000,
  });
  try {
    const one = async <Row>(query: ReturnType<typeof sql>) => (await queryRows<Row>(database.db, query))[0]!;
    const { owner } = await one<{ owner: string }>(
      sql`SELECT owner FROM campaigns WHERE pays_only_whitelisted_tokens GROUP BY owner ORDER BY count(*) DESC, owner LIMIT 1`,
    );
    const { token } = await one<{ token: string }>(
      sql`SELECT t.chain_id || ':' || t.address AS token FROM tokens t WHERE t.is_whitelisted AND t.symbol = 'USDC' ORDER BY t.chain_id LIMIT 1`,
    );
    const target = await one<{ chain_id: number; address: string }>(
      sql`SELECT s.chain_id, s.target_contract AS address FROM action_steps s
           GROUP BY 1, 2 ORDER BY count(*) DESC, 2 LIMIT 1`,
    );
    const ids = await queryRows<{ public_id: string }>(
      database.db,
      sql`SELECT public_id FROM campaigns TABLESAMPLE BERNOULLI (5) REPEATABLE (42) LIMIT 2000`,
    );
    const { claimant } = await one<{ claimant: string }>(
      sql`SELECT claimant FROM claims WHERE claimed_at > now() - interval '1 day'
           GROUP BY claimant ORDER BY count(*) DESC, claimant LIMIT 1`,
    );
    const busiest = await one<{ public_id: string; claims: number }>(
      sql`SELECT c.public_id, count(*)::integer AS claims FROM claims AS w JOIN campaigns AS c ON c.key = w.campaign_key
           WHERE NOT w.draw GROUP BY c.public_id ORDER BY count(*) DESC, c.public_id LIMIT 1`,
    );
    const deepPage = Math.max(2, Math.min(ACTIVITY_DEEP_PAGE, Math.ceil(busiest.claims / 10)));
    // The position after the last claim of the page before: the cursor that answers the same page.
    const before = await one<{ key: string; id: string }>(
      sql`SELECT (extract(epoch FROM w.claimed_at) * 1000000)::bigint::text AS key, w.id::text AS id
            FROM claims AS w JOIN campaigns AS c ON c.key = w.campaign_key
           WHERE c.public_id = ${busiest.public_id} AND NOT w.draw
           ORDER BY w.claimed_at DESC, w.id DESC OFFSET ${(deepPage - 1) * 10 - 1} LIMIT 1`,
    );
    const tokens = createApiTokensRepository(database.db);
    const userId = await tokens.findUserIdByAddress(claimant);
    const profileUser = userId ?? (await one<{ id: string }>(sql`SELECT id FROM users ORDER BY score DESC LIMIT 1`)).id;
    await tokens.revokeTokensLabelled('bench');
    const { token: bearerToken } = await tokens.createToken(profileUser, 'bench');
    return {
      owner,
      token,
      targetContract: { chainId: target.chain_id, address: target.address },
      campaignIds: ids.map((row) => row.public_id),
      claimant,
      bearerToken,
      busiest: { id: busiest.public_id, deepPage, deepCursor: encodeCursor(activityCursorScope(busiest.public_id, undefined), before) },
    };
  } finally {
    await database.close();
  }
}
