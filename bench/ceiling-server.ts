import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

/**
 * The framework ceiling: bare Fastify answering each scenario with the exact bytes the service
 * returned for it, from memory: a compressed answer as compressed, with its Content-Encoding, so
 * that the ceiling of a `<scenario> compressed` row pays nothing for compression.
 * `GET /ceiling/<scenario>/<anything>` sends scenario's body.
 * Usage: node ceiling-server.js <bodies.json> <port>, the file a list of { body (base64), encoding? }.
 */
const [bodiesFile = '', port = '0'] = process.argv.slice(2);
const answers = (JSON.parse(readFileSync(bodiesFile, 'utf8')) as { body: string; encoding?: string }[]).map(({ body, encoding }) => ({
  body: Buffer.from(body, 'base64'),
  encoding,
}));

const app = Fastify({ logger: false });
app.get('/ceiling/:scenario/*', (request, reply) => {
  const answer = answers[Number((request.params as { scenario: string }).scenario)];
  if (answer?.encoding) void reply.header('content-encoding', answer.encoding);
  void reply.type('application/json; charset=utf-8').send(answer?.body);
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write('ready\n');
