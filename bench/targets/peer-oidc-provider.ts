// Peer: oidc-provider (bench/package.json), client_credentials with JWT access tokens signed with
// Ed25519/EdDSA: one resource server (features.resourceIndicators, accessTokenFormat 'jwt',
// jwt.sign.alg 'EdDSA') that every client_credentials token is for. The provider is a Koa app:
// the thinnest adapter is its own callback on node:http. In-memory adapter (the default).
// The library is loaded by name at run time: the product's typecheck does not need the bench's
// dependencies installed.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { AUDIENCE, LIFETIME_SECONDS } from './jwt-claims.ts';
import { PEER_CLIENT } from './peer-client.ts';

interface ProviderModule {
  default: new (issuer: string, configuration: object) => { callback(): RequestListener };
}

const specifier = 'oidc-provider';
const { default: Provider } = (await import(specifier)) as ProviderModule;
const signingJwk = {
  ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }),
  alg: 'EdDSA',
  use: 'sig',
  kid: 'bench-ed25519',
};
const resourceServer = {
  audience: AUDIENCE,
  scope: 'api',
  accessTokenTTL: LIFETIME_SECONDS,
  accessTokenFormat: 'jwt',
  jwt: { sign: { alg: 'EdDSA' } },
};

// oidc-provider wants a web URI as its issuer (the token's `iss`); the ceilings use a URN.
const provider = new Provider('http://127.0.0.1/bench', {
  clients: [
    {
      ...PEER_CLIENT,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  jwks: { keys: [signingJwk] },
  enabledJWA: { idTokenSigningAlgValues: ['EdDSA'] },
  clientDefaults: { id_token_signed_response_alg: 'EdDSA' },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => AUDIENCE,
      useGrantedResource: () => true,
      getResourceServerInfo: () => resourceServer,
    },
  },
  cookies: { keys: ['bench-cookie-key-not-secret'] },
});

const server = createServer(provider.callback());
server.keepAliveTimeout = 30_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;
process.stdout.write(
  `${JSON.stringify({ event: 'listening', baseUrl: `http://127.0.0.1:${port}`, tokenPath: '/token' })}\n`,
);
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
