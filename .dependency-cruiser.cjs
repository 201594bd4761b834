/**
 * The layers of src/ (npm run lint checks them): a module imports only from its own layer or the
 * layers below it, and no import cycle exists.
 *
 *   entry    server.ts, cli/, docs/                    what a process runs
 *   app      app.ts, startup.ts, demo.ts, demo-live.ts the Fastify app, its start-up work, the demo
 *   http     routes/, plugins/, openapi/, auth/        requests and answers; who may make them
 *   domain   services/, claim-volumes/, events/,       assembly of answers; the claim volumes; the event
 *            webhooks/, indexer/, price-job/           streams and webhooks; following the chain and prices
 *   data     repositories/, ingest/, seed/, prices/    reads, the write path, generated data, the price sources
 *   base     db/, schemas/, json/, chain/, config.ts, errors.ts, logger.ts and the other files of src/
 */
const layers = {
  entry: ['^src/server\\.ts$', '^src/cli/', '^src/docs/'],
  app: ['^src/app\\.ts$', '^src/startup\\.ts$', '^src/demo\\.ts$', '^src/demo-live\\.ts$'],
  http: ['^src/routes/', '^src/plugins/', '^src/openapi/', '^src/auth/'],
  domain: ['^src/services/', '^src/claim-volumes/', '^src/events/', '^src/indexer/', '^src/price-job/', '^src/webhooks/'],
  data: ['^src/repositories/', '^src/ingest/', '^src/seed/', '^src/prices/'],
};
const order = ['base', 'data', 'domain', 'http', 'app', 'entry'];
const pathsOf = (name) => layers[name] ?? [];
const above = (name) => order.slice(order.indexOf(name) + 1).flatMap(pathsOf);

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'An import cycle ties modules that should stand alone.', from: { path: '^src/' }, to: { circular: true } },
    {
      name: 'claim-volumes-through-its-entry',
      severity: 'error',
      comment: 'The claim volumes are one module: the rest of src/ imports src/claim-volumes/index.ts only.',
      from: { path: '^src/', pathNot: '^src/claim-volumes/' },
      to: { path: '^src/claim-volumes/', pathNot: '^src/claim-volumes/index\\.ts$' },
    },
    ...order.slice(0, -1).map((name) => ({
      name: `no-import-up-from-${name}`,
      severity: 'error',
      comment: `The ${name} layer imports only from its own layer and those below it (.dependency-cruiser.cjs).`,
      from:
        name === 'base'
          ? { path: '^src/', pathNot: Object.values(layers).flat() }
          : { path: pathsOf(name) },
      to: { path: above(name) },
    })),
  ],
  required: [
    {
      name: 'repositories-issue-sql',
      severity: 'error',
      comment: 'repositories/ holds the modules that build or run SQL; a helper without SQL lives where its users are, or in db/.',
      module: { path: '^src/repositories/' },
      to: { path: ['^node_modules/drizzle-orm/', '^src/db/client\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|test|bench|scripts)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
