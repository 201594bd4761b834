import { loadConfig } from '../config.js';
import { type DatabaseHandle, openDatabase } from '../db/client.js';
import { eventId, parseEventId } from '../events/index.js';
import { createWebhookEndpointsRepository, type WebhookEndpointSummary, type WebhookEndpointsRepository, type WebhookFilters } from '../repositories/webhooks.repository.js';
import { Address, CampaignId } from '../schemas/common.js';
import { EVENT_TYPES } from '../schemas/events.js';
import { checkWebhookUrl } from '../webhooks/address-guard.js';
import { SecretBox } from '../webhooks/secret-box.js';
import { generateSecret } from '../webhooks/signing.js';
import { CommandError, parseCommandLine, runCommand, UsageError } from './command-line.js';

const USAGE = `Usage:
  npm run webhooks -- add <url> [--type <types>] [--campaign-id <ids>] [--claimant <address>] [--chain-id <ids>] [--description <text>]
  npm run webhooks -- list
  npm run webhooks -- update <id> [--url <url>] [--type <types>|*] [--campaign-id <ids>|*] [--claimant <address>|*] [--chain-id <ids>|*] [--description <text>]
  npm run webhooks -- disable <id>
  npm run webhooks -- enable <id>
  npm run webhooks -- rotate-secret <id>
  npm run webhooks -- replay <id> (--from <event-id> | --since <time>)
  npm run webhooks -- attempts <id>
  npm run webhooks -- rm <id>

Manages the endpoints the server delivers the event log to (Standard Webhooks: POST, signed with
the endpoint's secret), on DATABASE_URL, or on the embedded database at PGLITE_DATA_DIR (stop
the server first). Filters are those of GET /events, comma-separated; an endpoint without one gets
every event. A new endpoint gets the events committed from now on.

add            registers an endpoint and prints its secret (whsec_...) once. Needs WEBHOOK_SECRET_KEY,
               which seals the secret in the database. The URL must resolve to a public address
               unless WEBHOOK_ALLOW_PRIVATE=true.
list           every endpoint: filters, state, position, last delivery, failures. Never a secret.
update         changes the URL, filters (* = every value again) or description.
disable        stops deliveries to the endpoint; its position stays.
enable         resumes deliveries where it stopped, its failures forgotten.
rotate-secret  prints a new secret; for 24 hours messages carry signatures by both, so that the
               receiver can move to the new one.
replay         sends again the events after an event id (--from, as GET /events' Last-Event-ID), or
               those committed from a time on (--since, ISO 8601), as long as they are kept.
attempts       the endpoint's failed attempts of the last week, newest first: time, event id,
               status, error, next attempt.
rm             removes the endpoint and its attempts.`;

const ENDPOINT_ID = /^[1-9][0-9]{0,8}$/;
const ADDRESS = new RegExp(Address.pattern!);
const CAMPAIGN_ID = new RegExp(CampaignId.pattern!);
const EVERY = '*';
const ROTATION_HOURS = 24;
const MAX_DESCRIPTION_LENGTH = 200;

const OPTIONS = {
  type: { type: 'string' },
  'campaign-id': { type: 'string' },
  claimant: { type: 'string' },
  'chain-id': { type: 'string' },
  description: { type: 'string' },
  url: { type: 'string' },
  from: { type: 'string' },
  since: { type: 'string' },
} as const;

type Values = Partial<Record<keyof typeof OPTIONS, string>>;
type Command = (endpoints: WebhookEndpointsRepository, database: DatabaseHandle) => Promise<void>;

async function main(): Promise<void> {
  const parsed = parseCommandLine(USAGE, { options: OPTIONS, allowPositionals: true });
  if (!parsed) return;
  const [command, ...operands] = parsed.positionals;
  const config = loadConfig();
  const run = await commandFor(command, operands, parsed.values, config);
  const database = await openDatabase(config);
  try {
    await run(createWebhookEndpointsRepository(database.db), database);
  } finally {
    await database.close();
  }
}

/** Checks the arguments completely before the database is opened. */
async function commandFor(command: string | undefined, operands: string[], values: Values, config: ReturnType<typeof loadConfig>): Promise<Command> {
  const allowed = (...names: (keyof typeof OPTIONS)[]) => {
    for (const name of Object.keys(values) as (keyof typeof OPTIONS)[]) {
      if (values[name] !== undefined && !names.includes(name)) throw new UsageError(`--${name} does not belong to ${command}`);
    }
  };
  const idOperand = () => {
    if (operands.length !== 1) throw new UsageError(`${command} needs one endpoint id`);
    if (!ENDPOINT_ID.test(operands[0]!)) throw new UsageError(`the endpoint id must be a positive whole number (got '${operands[0]}')`);
    return Number(operands[0]);
  };
  switch (command) {
    case 'add': {
      allowed('type', 'campaign-id', 'claimant', 'chain-id', 'description');
      if (operands.length !== 1) throw new UsageError('add needs one URL');
      const url = await checkedUrl(operands[0]!, config.WEBHOOK_ALLOW_PRIVATE);
      const box = secretBox(config.WEBHOOK_SECRET_KEY);
      const filters = { types: null, chainIds: null, campaignIds: null, claimant: null, ...parseFilters(values, false) };
      const description = values.description === undefined ? null : parseDescription(values.description);
      return (endpoints) => add(endpoints, box, { url, description, ...filters });
    }
    case 'list':
      allowed();
      if (operands.length > 0) throw new UsageError(`unexpected argument '${operands[0]}'`);
      return list;
    case 'update': {
      allowed('url', 'type', 'campaign-id', 'claimant', 'chain-id', 'description');
      const id = idOperand();
      const changes: Parameters<WebhookEndpointsRepository['update']>[1] = parseFilters(values, true);
      if (values.url !== undefined) changes.url = await checkedUrl(values.url, config.WEBHOOK_ALLOW_PRIVATE);
      if (values.description !== undefined) changes.description = parseDescription(values.description);
      if (Object.keys(changes).length === 0) throw new UsageError('update needs something to change: --url, a filter or --description');
      return async (endpoints) => {
        const endpoint = await endpoints.update(id, changes);
        if (!endpoint) throw new CommandError(`no webhook endpoint ${id}`);
        console.log(`Updated endpoint ${id}.`);
        printEndpoint(endpoint);
      };
    }
    case 'disable':
    case 'enable': {
      allowed();
      const id = idOperand();
      const enable = command === 'enable';
      return async (endpoints) => {
        if (!(await endpoints.setEnabled(id, enable, 'disabled by the operator'))) throw new CommandError(`no webhook endpoint ${id}`);
        console.log(enable ? `Enabled endpoint ${id}: it gets what it has not had yet, from where it stopped.` : `Disabled endpoint ${id}.`);
      };
    }
    case 'rotate-secret': {
      allowed();
      const id = idOperand();
      const box = secretBox(config.WEBHOOK_SECRET_KEY);
      return async (endpoints) => {
        const secret = generateSecret();
        const until = new Date(Date.now() + ROTATION_HOURS * 3_600_000);
        if (!(await endpoints.rotateSecret(id, box.seal(secret), until))) throw new CommandError(`no webhook endpoint ${id}`);
        console.log(`New secret of endpoint ${id}. Until ${until.toISOString()} each message is signed with the old one too.`);
        console.log('It is shown only this once. The secret:');
        console.log(secret);
      };
    }
    case 'replay': {
      allowed('from', 'since');
      const id = idOperand();
      if ((values.from === undefined) === (values.since === undefined)) throw new UsageError('replay needs either --from <event-id> or --since <time>');
      const from = values.from === undefined ? undefined : parseEventId(values.from);
      if (values.from !== undefined && (!from || !Number.isInteger(from.id))) {
        throw new UsageError(`--from must be an event id this service sent, <number> or <number>-<number> (got '${values.from}')`);
      }
      const since = values.since === undefined ? undefined : parseTime(values.since);
      return async (endpoints) => {
        const position = from ?? (await endpoints.positionBefore(since!));
        const result = await endpoints.replay(id, position);
        if (result === 'not-found') throw new CommandError(`no webhook endpoint ${id}`);
        if (result === 'pruned') throw new CommandError(`the events after ${values.from ?? values.since} are no longer all kept: replay from a later point`);
        console.log(`Endpoint ${id} gets the events after ${values.from ?? `those committed before ${since!.toISOString()}`} again, in order.`);
      };
    }
    case 'attempts': {
      allowed();
      const id = idOperand();
      return async (endpoints) => {
        const endpoint = await endpoints.get(id);
        if (!endpoint) throw new CommandError(`no webhook endpoint ${id}`);
        printEndpoint(endpoint);
        const attempts = await endpoints.attempts(id, 100);
        if (attempts.length === 0) {
          console.log('No failed attempt in the last week.');
          return;
        }
        printTable([
          ['TIME', 'EVENT', 'STATUS', 'NEXT ATTEMPT', 'ERROR'],
          ...attempts.map((attempt) => [
            attempt.attemptedAt.toISOString(),
            attempt.eventId,
            attempt.status === null ? '-' : String(attempt.status),
            attempt.nextAttemptAt?.toISOString() ?? '-',
            attempt.error,
          ]),
        ]);
      };
    }
    case 'rm': {
      allowed();
      const id = idOperand();
      return async (endpoints) => {
        if (!(await endpoints.remove(id))) throw new CommandError(`no webhook endpoint ${id}`);
        console.log(`Removed endpoint ${id}.`);
      };
    }
    case undefined:
      throw new UsageError('missing command: add, list, update, disable, enable, rotate-secret, replay, attempts or rm');
    default:
      throw new UsageError(`unknown command '${command}': use add, list, update, disable, enable, rotate-secret, replay, attempts or rm`);
  }
}

function secretBox(key: string | undefined): SecretBox {
  if (key === undefined) {
    throw new CommandError('WEBHOOK_SECRET_KEY is not set: it seals the endpoints\' secrets. Make one with: openssl rand -base64 32 (the server needs the same)');
  }
  try {
    return new SecretBox(key);
  } catch (error) {
    throw new CommandError(`WEBHOOK_SECRET_KEY: ${(error as Error).message}`);
  }
}

async function checkedUrl(url: string, allowPrivate: boolean): Promise<string> {
  try {
    return (await checkWebhookUrl(url, allowPrivate)).toString();
  } catch (error) {
    throw new CommandError((error as Error).message);
  }
}

/** The filter options given; with `clearable`, `*` sets one back to every value (null). */
function parseFilters(values: Values, clearable: boolean): Partial<WebhookFilters> {
  const filters: Partial<WebhookFilters> = {};
  const list = (name: keyof typeof OPTIONS, check: (item: string) => boolean, what: string): string[] | null | undefined => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    if (clearable && raw.trim() === EVERY) return null;
    const items = raw.split(',').map((item) => item.trim());
    const bad = items.find((item) => !check(item));
    if (bad !== undefined) throw new UsageError(`--${name}: '${bad}' is not ${what}`);
    return [...new Set(items)];
  };
  const types = list('type', (item) => (EVENT_TYPES as readonly string[]).includes(item), `an event type (${EVENT_TYPES.join(', ')})`);
  if (types !== undefined) filters.types = types;
  const campaignIds = list('campaign-id', (item) => CAMPAIGN_ID.test(item), 'a campaign ID <chain_id>:<campaign_core_address>:<identifier>');
  if (campaignIds !== undefined) filters.campaignIds = campaignIds && campaignIds.map((id) => id.toLowerCase());
  const chainIds = list('chain-id', (item) => /^[0-9]{1,10}$/.test(item) && Number(item) <= 2_147_483_647, 'a chain id');
  if (chainIds !== undefined) filters.chainIds = chainIds && chainIds.map(Number);
  const claimant = list('claimant', (item) => ADDRESS.test(item), 'an address (0x and 40 hexadecimal characters)');
  if (claimant !== undefined) {
    if (claimant && claimant.length > 1) throw new UsageError('--claimant takes one address');
    filters.claimant = claimant && claimant[0]!.toLowerCase();
  }
  return filters;
}

function parseDescription(raw: string): string {
  const text = raw.trim();
  // eslint-disable-next-line no-control-regex
  if (text === '' || text.length > MAX_DESCRIPTION_LENGTH || /[\u0000-\u001f\u007f]/.test(text)) {
    throw new UsageError(`--description must be 1 to ${MAX_DESCRIPTION_LENGTH} printable characters`);
  }
  return text;
}

function parseTime(raw: string): Date {
  const time = new Date(raw);
  if (!/^[0-9]{4}-/.test(raw) || Number.isNaN(time.getTime())) throw new UsageError(`--since must be an ISO 8601 time, such as 2026-11-28T10:00:00Z (got '${raw}')`);
  return time;
}

async function add(endpoints: WebhookEndpointsRepository, box: SecretBox, input: Omit<Parameters<WebhookEndpointsRepository['add']>[0], 'sealedSecret'>) {
  const secret = generateSecret();
  const endpoint = await endpoints.add({ ...input, sealedSecret: box.seal(secret) });
  console.log(`Added endpoint ${endpoint.id}: it gets the events committed from now on.`);
  printEndpoint(endpoint);
  console.log('Its signing secret is shown only this once (rotate-secret makes a new one). The secret:');
  console.log(secret);
}

async function list(endpoints: WebhookEndpointsRepository, database: DatabaseHandle) {
  const rows = await endpoints.list();
  if (rows.length === 0) {
    console.log(`No webhook endpoints in ${database.location}.`);
    return;
  }
  printTable([
    ['ID', 'URL', 'FILTERS', 'STATE', 'POSITION', 'LAST DELIVERED', 'FAILURES'],
    ...rows.map((row) => [
      String(row.id),
      row.url,
      filtersText(row),
      row.enabled ? 'enabled' : `disabled: ${row.disabledReason ?? ''}`,
      positionText(row),
      row.lastDeliveredAt ? `${row.lastDeliveredId} at ${row.lastDeliveredAt.toISOString()}` : '-',
      row.attempts === 0 ? '-' : `${row.attempts} since ${row.failingSince?.toISOString()}, next ${row.nextAttemptAt.toISOString()}`,
    ]),
  ]);
}

function printEndpoint(endpoint: WebhookEndpointSummary): void {
  console.log(`  url:       ${endpoint.url}`);
  if (endpoint.description) console.log(`  about:     ${endpoint.description}`);
  console.log(`  filters:   ${filtersText(endpoint)}`);
  console.log(`  state:     ${endpoint.enabled ? 'enabled' : `disabled since ${endpoint.disabledAt?.toISOString()}: ${endpoint.disabledReason}`}`);
  console.log(`  position:  after ${positionText(endpoint)}`);
  if (endpoint.rotatingUntil) console.log(`  rotating:  the previous secret signs too until ${endpoint.rotatingUntil.toISOString()}`);
}

function filtersText(filters: WebhookFilters): string {
  const parts = [
    filters.types && `type=${filters.types.join(',')}`,
    filters.campaignIds && `campaignId=${filters.campaignIds.join(',')}`,
    filters.claimant && `claimant=${filters.claimant}`,
    filters.chainIds && `chainId=${filters.chainIds.join(',')}`,
  ].filter(Boolean);
  return parts.length === 0 ? 'every event' : parts.join(' ');
}

function positionText({ cursor }: WebhookEndpointSummary): string {
  return eventId(cursor);
}

function printTable(table: string[][]): void {
  const widths = table[0]!.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
  for (const cells of table) console.log(cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
}

runCommand(USAGE, 'webhooks command failed', main);
