// Peer: @node-oauth/oauth2-server (bench/package.json), client_credentials only, behind the thinnest
// adapter: node:http, the form body parsed with URLSearchParams, the library's Request/Response.
// The model keeps one client in memory (plain secret, compared in constant time), and signs the
// access token with jose Ed25519/EdDSA with the reference server's claims (generateAccessToken).
// The library is loaded by name at run time: the product's typecheck does not need the bench's
// dependencies installed.
import { timingSafeEqual } from 'node:crypto';
import { serveBare } from './bare-server.ts';
import { LIFETIME_SECONDS, newBenchKey, signAccessToken } from './jwt-claims.ts';
import { PEER_CLIENT } from './peer-client.ts';

interface OAuthMessage {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}
interface OAuth2ServerModule {
  default: new (options: { model: object; accessTokenLifetime: number; requireClientAuthentication?: object }) => {
    token(request: object, response: object): Promise<unknown>;
  };
  Request: new (options: { method: string; headers: Record<string, unknown>; query: object; body: object }) => object;
  Response: new () => OAuthMessage;
}

const specifier = '@node-oauth/oauth2-server';
const { default: OAuth2Server, Request, Response } = (await import(specifier)) as OAuth2ServerModule;
const key = await newBenchKey();
const client = { id: PEER_CLIENT.client_id, grants: ['client_credentials'], accessTokenLifetime: LIFETIME_SECONDS };
const secret = Buffer.from(PEER_CLIENT.client_secret);
const serviceUser = { id: PEER_CLIENT.client_id };

const server = new OAuth2Server({
  accessTokenLifetime: LIFETIME_SECONDS,
  model: {
    getClient: (clientId: string, clientSecret: string) => {
      const presented = Buffer.from(clientSecret ?? '');
      const ok = clientId === client.id && presented.length === secret.length && timingSafeEqual(presented, secret);
      return Promise.resolve(ok ? client : false);
    },
    getUserFromClient: () => Promise.resolve(serviceUser),
    generateAccessToken: () => signAccessToken(key, PEER_CLIENT.client_id),
    // Nothing to store: a JWT access token is self-contained (and the reference server stores none either).
    saveToken: (token: object) => Promise.resolve({ ...token, client, user: serviceUser }),
  },
});

await serveBare(async (request, body) => {
  const response = new Response();
  await server
    .token(
      new Request({
        method: request.method ?? 'GET',
        headers: request.headers,
        query: {},
        body: Object.fromEntries(new URLSearchParams(body.toString('utf8'))),
      }),
      response,
    )
    .catch(() => undefined); // errors are already in `response` (status and body)
  return { status: response.status, body: JSON.stringify(response.body) };
});
