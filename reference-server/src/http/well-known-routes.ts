// GET /.well-known/jwks.json: the public key that verifies access tokens.
import type { FastifyInstance } from 'fastify';
import type { SigningKey } from '../crypto/access-tokens.ts';

export const JWKS_PATH = '/.well-known/jwks.json';

export function wellKnownRoutes(app: FastifyInstance, options: { signingKey: SigningKey }): Promise<void> {
  app.get(JWKS_PATH, async (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=300')
      .type('application/json; charset=utf-8')
      .send(options.signingKey.jwks()),
  );
  return Promise.resolve();
}
