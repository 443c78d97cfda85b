// The two token servers: one @jmondi/oauth2-server AuthorizationServer per region, behind the spec's
// token path, through the library's own Fetch-API adapter (requestFromVanilla, responseToVanilla,
// handleVanillaError). Everything else is the library: its client authentication (form fields or
// HTTP Basic), its client_credentials, password and refresh_token grants, errors and statuses,
// its JWT access and refresh tokens, its token lifetimes (one hour) and its refresh rotation. The
// repositories are in-memory maps written as the library's documentation shows them.
//
// The deployment rule: no default scope. A client_credentials or password request that names no
// scope is refused with the library's own invalid_scope ("Specify a scope in the request or set a
// default scope"), as an Okta custom authorization server refuses one; a profile declares the
// scope to send (credentials.clients.<name>.tokenParameters).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener } from 'node:http';
import {
  AuthorizationServer,
  DateInterval,
  OAuthException,
  OAuthRequest,
  type GrantIdentifier,
  type OAuthClient,
  type OAuthClientRepository,
  type OAuthScope,
  type OAuthScopeRepository,
  type OAuthToken,
  type OAuthTokenRepository,
  type OAuthUser,
  type OAuthUserRepository,
} from '@jmondi/oauth2-server';
import { handleVanillaError, requestFromVanilla, responseToVanilla } from '@jmondi/oauth2-server/vanilla';
import type { FindToken } from '../shared/gateway.ts';
import type { Region, TargetClient, TargetUser } from '../shared/principals.ts';

/** The spec's token path of each region (§4, §9). */
export const tokenPaths: Record<Region, string> = {
  us: '/api/v1/auth/oauth2/token',
  eu: '/oauth2/default/v1/token',
};

/** The scopes the servers know: the people API's, and the password grant's (spec §2.2). */
export const knownScopes = ['people.read', 'openid', 'email', 'profile', 'company'];
/** The grants that must name a scope (the deployment rule); a refresh keeps the original scope. */
const scopeRequired = new Set<GrantIdentifier>(['client_credentials', 'password']);

const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

function clientRepository(clients: TargetClient[]): OAuthClientRepository {
  const byId = new Map(
    clients.map((c): [string, OAuthClient] => [
      c.clientId,
      {
        id: c.clientId,
        name: c.name,
        secret: c.clientSecret,
        redirectUris: [],
        allowedGrants: c.grantTypes as GrantIdentifier[],
        scopes: [],
      },
    ]),
  );
  return {
    getByIdentifier(clientId) {
      const client = byId.get(clientId);
      return client ? Promise.resolve(client) : Promise.reject(OAuthException.invalidClient());
    },
    isClientValid(grantType, client, clientSecret) {
      return Promise.resolve(
        client.allowedGrants.includes(grantType) &&
          clientSecret !== undefined &&
          sameSecret(client.secret ?? '', clientSecret),
      );
    },
  };
}

const scopeRepository: OAuthScopeRepository = {
  getAllByIdentifiers(names) {
    return Promise.resolve(names.filter((n) => knownScopes.includes(n)).map((name): OAuthScope => ({ name })));
  },
  finalize(scopes, grant) {
    return scopes.length === 0 && scopeRequired.has(grant)
      ? Promise.reject(OAuthException.invalidScope())
      : Promise.resolve(scopes);
  },
};

function userRepository(users: TargetUser[]): OAuthUserRepository {
  const byUsername = new Map(users.map((u) => [u.username, u]));
  return {
    getUserByCredentials(identifier, password) {
      const user = byUsername.get(String(identifier));
      return Promise.resolve(
        user && password !== undefined && sameSecret(user.password, password)
          ? ({ id: user.username } satisfies OAuthUser)
          : undefined,
      );
    },
  };
}

/** Issued tokens, by access-token id and by refresh-token id; a revoked token stays, expired. */
class TokenRepository implements OAuthTokenRepository {
  private readonly byAccessToken = new Map<string, OAuthToken>();
  private readonly byRefreshToken = new Map<string, OAuthToken>();

  issueToken(client: OAuthClient, scopes: OAuthScope[], user?: OAuthUser | null): Promise<OAuthToken> {
    return Promise.resolve({
      accessToken: randomBytes(32).toString('base64url'),
      accessTokenExpiresAt: new Date(),
      client,
      user: user ?? null,
      scopes,
    });
  }
  issueRefreshToken(token: OAuthToken): Promise<OAuthToken> {
    token.refreshToken = randomBytes(32).toString('base64url');
    token.refreshTokenExpiresAt = new DateInterval('7d').getEndDate();
    this.byRefreshToken.set(token.refreshToken, token);
    return Promise.resolve(token);
  }
  persist(token: OAuthToken): Promise<void> {
    this.byAccessToken.set(token.accessToken, token);
    return Promise.resolve();
  }
  revoke(token: OAuthToken): Promise<void> {
    token.accessTokenExpiresAt = new Date(0);
    token.refreshTokenExpiresAt = new Date(0);
    return Promise.resolve();
  }
  isRefreshTokenRevoked(token: OAuthToken): Promise<boolean> {
    return Promise.resolve((token.refreshTokenExpiresAt?.getTime() ?? 0) <= Date.now());
  }
  getByRefreshToken(id: string): Promise<OAuthToken> {
    const token = this.byRefreshToken.get(id);
    return token
      ? Promise.resolve(token)
      : Promise.reject(OAuthException.invalidParameter('refresh_token', 'Token not found'));
  }
  getByAccessToken(id: string): Promise<OAuthToken> {
    const token = this.byAccessToken.get(id);
    return token ? Promise.resolve(token) : Promise.reject(OAuthException.invalidParameter('token', 'Token not found'));
  }
}

export interface TokenServer {
  handler: RequestListener;
  /** The library's own introspection (RFC 7662), as the gateway's resource server asks it. */
  introspect(token: string): Promise<{ active: boolean; client_id?: string; sub?: string }>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The gateway's own client at each token server, for introspection only (a resource server's credentials). */
export function gatewayClient(region: Region): TargetClient {
  return {
    name: `gateway-${region}`,
    clientId: `people-gateway-${region}`,
    clientSecret: randomBytes(24).toString('base64url'),
    region,
    grantTypes: ['client_credentials'],
    registeredWithProvider: true,
  };
}

export function createTokenServer(
  region: Region,
  origin: string,
  clients: TargetClient[],
  users: TargetUser[],
): TokenServer {
  const gateway = gatewayClient(region);
  const server = new AuthorizationServer(
    clientRepository([...clients.filter((c) => c.region === region && c.registeredWithProvider), gateway]),
    new TokenRepository(),
    scopeRepository,
    randomBytes(32).toString('base64url'),
  );
  server.enableGrantTypes('client_credentials', 'refresh_token', {
    grant: 'password',
    userRepository: userRepository(users),
  });

  const handler: RequestListener = (req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      // The adapter routes only POST on the token path to the library (as a framework route would).
      if (req.method !== 'POST' || url.pathname !== tokenPaths[region]) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not_found' }));
        return;
      }
      const headers = new Headers();
      for (const [name, values] of Object.entries(req.headersDistinct))
        if (name !== 'host') for (const v of values ?? []) headers.append(name, v);
      const request = new Request(url, { method: 'POST', headers, body: await readBody(req) });
      let answer;
      try {
        answer = await server.respondToAccessTokenRequest(await requestFromVanilla(request));
      } catch (error) {
        answer = handleVanillaError(error);
      }
      const response = responseToVanilla(answer);
      res
        .writeHead(response.status, Object.fromEntries(response.headers))
        .end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      process.stderr.write(`token server error: ${String(error)}\n`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  };

  return {
    handler,
    async introspect(token) {
      const request = new OAuthRequest({
        body: { token, client_id: gateway.clientId, client_secret: gateway.clientSecret },
      });
      return (await server.introspect(request)).body as { active: boolean; client_id?: string; sub?: string };
    },
  };
}

/** The gateway's token lookup: each region's introspection; inactive everywhere = not found. */
export function findIntrospectedToken(servers: TokenServer[]): FindToken {
  return async (value) => {
    for (const server of servers) {
      const answer = await server.introspect(value);
      if (answer.active && answer.client_id)
        return { clientId: answer.client_id, ...(answer.sub !== undefined ? { accountId: answer.sub } : {}) };
    }
    return undefined;
  };
}
