import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

/**
 * The framework ceiling: bare Fastify answering each scenario with the exact bytes the service
 * returned for it, from memory. `GET /ceiling/<scenario>/<anything>` sends scenario's body.
 * Usage: node ceiling-server.js <bodies.json> <port>
 */
const [bodiesFile = '', port = '0'] = process.argv.slice(2);
const bodies = (JSON.parse(readFileSync(bodiesFile, 'utf8')) as string[]).map((body) => Buffer.from(body, 'base64'));

const app = Fastify({ logger: false });
app.get('/ceiling/:scenario/*', (request, reply) => {
  const body = bodies[Number((request.params as { scenario: string }).scenario)];
  void reply.type('application/json; charset=utf-8').send(body);
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write('ready\n');
