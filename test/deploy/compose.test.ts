import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import {
  type ComposeFile,
  type ComposeService,
  interpolate,
  loadCompose,
  profilesOf,
  readComposeYaml,
  readEnvFile,
  withProfiles,
} from '../helpers/compose-file.js';

const run = promisify(execFile);

/**
 * docker-compose.yml as an operator runs it, without a Docker engine: valid against the Compose
 * Specification's JSON Schema (test/deploy/compose-spec.json, compose-spec.md says where it comes
 * from) for every set of profiles, with the variables of .env.example; and what the file promises:
 * metrics never on a published port, the build's commit passed to every image of the service, one
 * password variable followed everywhere, the indexer and the price job stopped by a check of their
 * settings instead of restarting for ever, and dependencies that exist in each profile.
 */
const COMPOSE = 'docker-compose.yml';
const variables = readEnvFile('.env.example');
const schema = JSON.parse(readFileSync('test/deploy/compose-spec.json', 'utf8')) as object;
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
const file = loadCompose(COMPOSE, variables);
const raw = readComposeYaml(COMPOSE);
const appServices = (compose: ComposeFile) => Object.entries(compose.services).filter(([, service]) => service.image === 'campaign-service:local');

/** Every set of profiles worth running: none, each alone, and all of them. */
const PROFILE_SETS = [[], ...profilesOf(file).map((profile) => [profile]), profilesOf(file)];

const errorsOf = (document: unknown) => (validate(document) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`));

describe('docker-compose.yml', () => {
  it('names the profiles the documentation describes', () => {
    expect(profilesOf(file)).toEqual(['indexer', 'prices', 'scale-out', 'seed']);
  });

  it.each(PROFILE_SETS.map((profiles) => [profiles.join(', ') || '(none)', profiles]))(
    'validates against the Compose Specification with the profiles %s',
    (_name, profiles) => {
      const active = withProfiles(file, profiles);
      expect(errorsOf(active)).toEqual([]);
      // Compose refuses a dependency on a service that is not active (or does not exist).
      for (const [name, service] of Object.entries(active.services)) {
        for (const dependency of Object.keys(service.depends_on ?? {})) expect(Object.keys(active.services), `${name} depends on ${dependency}`).toContain(dependency);
      }
    },
  );

  it('fails validation when it is wrong: the schema and the test can tell', () => {
    const broken = structuredClone(file);
    (broken.services.api as Record<string, unknown>).restarts = 'always';
    broken.services.indexer!.depends_on!.migrate = { condition: 'service_ready' };
    const errors = errorsOf(broken).join('\n');
    expect(errors).toContain("/services/api must NOT have additional properties");
    expect(errors).toContain('/services/indexer/depends_on/migrate/condition must be equal to one of the allowed values');
    expect(() => interpolate('${CHAIN_RPC_URLS:?set it}', new Map())).toThrow('required variable CHAIN_RPC_URLS is missing a value: set it');
  });

  it('serves /metrics on no published port: every service that publishes one has METRICS_PORT, apart from it', () => {
    const publishing = appServices(file).filter(([, service]) => (service.ports ?? []).length > 0);
    expect(publishing.map(([name]) => name)).toEqual(['api', 'api-1', 'api-2']);
    for (const [name, service] of publishing) {
      const published = (service.ports ?? []).map((port) => port.split(':').at(-1));
      const metricsPort = service.environment?.METRICS_PORT;
      expect({ name, metricsPort }).toEqual({ name, metricsPort: expect.stringMatching(/^[1-9][0-9]*$/) as unknown });
      expect(published, name).not.toContain(metricsPort);
      expect(published, name).toEqual(['3000']);
    }
  });

  it('passes BUILD_COMMIT to every image of the service, and the Dockerfile sets it in the runtime stage', () => {
    const withCommit = loadCompose(COMPOSE, new Map([...variables, ['BUILD_COMMIT', '54e79cd']]));
    const services = appServices(withCommit);
    expect(services.length).toBeGreaterThan(5);
    for (const [name, service] of services) {
      expect({ name, build: service.build }).toEqual({ name, build: { context: '.', args: { BUILD_COMMIT: '54e79cd' } } });
    }
    // Without it the argument is empty, which the service reports as "unknown".
    expect(appServices(file).every(([, service]) => typeof service.build === 'object' && service.build.args?.BUILD_COMMIT === '')).toBe(true);
    const runtime = readFileSync('Dockerfile', 'utf8').split(/^FROM /m).at(-1)!;
    expect(runtime).toMatch(/^ARG BUILD_COMMIT=unknown$/m);
    expect(runtime).toMatch(/^ENV BUILD_COMMIT=\$\{BUILD_COMMIT\}$/m);
  });

  it('holds no password: POSTGRES_PASSWORD sets the database, every connection string and PgBouncer', () => {
    const text = readFileSync(COMPOSE, 'utf8');
    // Every postgres:// URL takes its password from the variable, with .env.example's default.
    const urls = [...text.matchAll(/postgres:\/\/[^\s"']+/g)].map((match) => match[0]);
    expect(urls.length).toBeGreaterThan(1);
    for (const url of urls) expect(url).toMatch(/^postgres:\/\/campaigns:\$\{POSTGRES_PASSWORD:-campaigns\}@/);
    const secret = 'not-the-default-9f2c';
    const chosen = loadCompose(COMPOSE, new Map([...variables, ['POSTGRES_PASSWORD', secret]]));
    const passwords = Object.entries(chosen.services).flatMap(([name, service]) =>
      Object.entries(service.environment ?? {}).flatMap(([key, value]) => {
        if (key === 'POSTGRES_PASSWORD') return [[name, value]];
        const url = /^postgres:\/\/[^:]+:([^@]*)@/.exec(value);
        return url ? [[name, decodeURIComponent(url[1]!)]] : [];
      }),
    );
    expect(new Set(passwords.map(([, password]) => password))).toEqual(new Set([secret]));
    expect(new Set(passwords.map(([name]) => name))).toEqual(new Set(['postgres', 'pgbouncer', ...appServices(file).map(([name]) => name)]));
    expect(readFileSync('deploy/pgbouncer/Dockerfile', 'utf8')).not.toMatch(/userlist\.txt\s*\/etc/);
  });

  it('reads only variables that .env.example lists, each with the default the file gives it', () => {
    const used = new Map<string, string | undefined>();
    loadCompose(COMPOSE, new Map(), used);
    expect([...used.keys()].sort()).toEqual([...variables.keys()].sort());
    for (const [name, fallback] of used) expect({ name, value: variables.get(name) }).toEqual({ name, value: fallback ?? '' });
  });

  describe.each([
    { worker: 'indexer', check: 'indexer-check' },
    { worker: 'prices', check: 'prices-check' },
  ])('$worker', ({ worker, check }) => {
    const service = (name: string): ComposeService => raw.services[name]!;

    it(`starts only after ${check} passed, which runs once and checks the settings it will run with`, () => {
      expect(service(worker).restart).toBe('unless-stopped');
      expect(service(worker).depends_on?.[check]).toEqual({ condition: 'service_completed_successfully' });
      expect(service(check).restart).toBe('no');
      expect(service(check).command).toEqual([...service(worker).command!, '--check']);
      expect(service(check).environment).toEqual(service(worker).environment);
      expect(service(check).profiles).toEqual(service(worker).profiles);
    });
  });

  /** A check's command as its container runs it: the image's environment, then the service's. */
  async function runCheck(name: string, overrides: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
    const service = loadCompose(COMPOSE, new Map([...variables, ...Object.entries(overrides)])).services[name]!;
    const [node, ...args] = service.command!;
    expect(node).toBe('node');
    try {
      const { stdout, stderr } = await run(process.execPath, args, {
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', HOST: '0.0.0.0', PORT: '3000', ...service.environment },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  it('indexer-check fails once, saying why, without CHAIN_RPC_URLS, and passes with it', { timeout: 60_000 }, async () => {
    const missing = await runCheck('indexer-check');
    expect(missing.code).toBe(2);
    expect(missing.stderr.split('\n')[0]).toBe('nothing to follow: set CHAIN_RPC_URLS (and INDEXER_CORES) or give --rpc-url and --chain-id');
    const given = await runCheck('indexer-check', { CHAIN_RPC_URLS: '8453=https://base.example/rpc' });
    expect(given).toMatchObject({ code: 0, stderr: '' });
    expect(given.stdout).toMatch(/^indexer settings ok: follows chain 8453: 0x[0-9a-f]{40}@\d+; 5 confirmations; price sources: defillama\n$/);
  });

  it('prices-check passes with the defaults, and fails saying why with PRICE_SOURCES=none', { timeout: 60_000 }, async () => {
    expect(await runCheck('prices-check')).toEqual({ code: 0, stdout: 'price job settings ok: sources defillama, current prices every 60000 ms\n', stderr: '' });
    expect(await runCheck('prices-check', { PRICE_SOURCES: 'none' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'nothing to run: PRICE_SOURCES=none names no price source (set defillama, chainlink or both)\n',
    });
  });
});
