import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';

/** The API's helmet options: JSON only, so a content security policy that allows nothing. */
export const HELMET_OPTIONS = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
    },
  },
} satisfies Parameters<typeof helmet>[0];

/**
 * Helmet's security headers on every response. The API answers JSON only, so its content security
 * policy allows nothing at all; the docs page sets its own, looser one (see openapi.ts).
 *
 * Helmet decides the headers; they are read from it once and added as the reply's own headers. Run
 * per request on the raw response, its `setHeader` calls made Node merge every reply header into
 * the response one by one, a small array per header, instead of handing Fastify's header object to
 * `writeHead` as it is. V8 may pretenure those arrays into the old generation in a process that
 * takes load right after its claim load (docs/design.md, "Keeping per-request garbage young"); the
 * old generation then fills with per-request garbage and the peak RSS rises far past its target.
 */
export const securityHeaders = fp(
  (app: FastifyInstance) => {
    const headers = headersSetBy(helmet(HELMET_OPTIONS));
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(headers);
      done();
    });
  },
  { name: 'security-headers' },
);

type Middleware = (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The headers a middleware sets on a response, by lower-case name. Helmet's, with the options above
 * (no directive computed per request), are the same on every response.
 */
export function headersSetBy(middleware: Middleware): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failure: unknown;
  let finished = false;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error) => {
    failure = error;
    finished = true;
  });
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error('the security headers middleware failed');
  if (!finished) throw new Error('the security headers middleware did not finish synchronously');
  return headers;
}
