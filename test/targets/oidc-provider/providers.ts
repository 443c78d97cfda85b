// The two token servers: one oidc-provider instance per region, each with its own clients, at the
// spec's token path (the library's `routes.token`). Everything else is the library's default
// behaviour: its client authentication, error codes and statuses, its client_credentials and
// refresh_token grants (refresh-token rotation policy included), its token lifetimes, its opaque
// access tokens. The one addition is the password grant, through the library's registerGrantType.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { RequestListener } from 'node:http';
import type { FindToken } from '../shared/gateway.ts';
import type { Region, TargetClient, TargetUser } from '../shared/principals.ts';

/** The spec's token path of each region (§4, §9). */
export const tokenPaths: Record<Region, string> = {
  us: '/api/v1/auth/oauth2/token',
  eu: '/oauth2/default/v1/token',
};

/** The scope values of a password grant (spec §2.2; `openid` stands in for the redacted value). */
export const passwordScopes = ['openid', 'email', 'profile', 'company'];

/** The parts of oidc-provider's (untyped) API this target uses. */
export interface StoredToken {
  clientId: string;
  accountId?: string;
  grantId?: string;
  scope?: string;
}
interface TokenModel {
  new (fields: object): { save(): Promise<string>; readonly expiration: number; readonly tokenType: string };
  find(value: string): Promise<StoredToken | undefined>;
}
interface GrantModel {
  new (fields: { accountId: string; clientId: string }): { addOIDCScope(scope: string): void; save(): Promise<string> };
  find(id: string): Promise<{ clientId: string; accountId: string } | undefined>;
}
interface OidcContext {
  oidc: { params: Record<string, string | undefined>; client: { clientId: string }; provider: Provider };
  body: unknown;
}
export interface Provider {
  AccessToken: TokenModel;
  ClientCredentials: TokenModel;
  RefreshToken: TokenModel;
  Grant: GrantModel;
  callback(): RequestListener;
  registerGrantType(name: string, handler: (ctx: OidcContext) => Promise<void>, parameters: string[]): void;
}
interface OidcErrors {
  InvalidRequest: new (description: string) => Error;
  InvalidGrant: new (description: string) => Error;
  InvalidScope: new (description: string, scope: string) => Error;
}
interface ProviderModule {
  default: new (issuer: string, configuration: object) => Provider;
  errors: OidcErrors;
}

// Loaded by name: the library ships no type declarations; the interfaces above are what we use.
const specifier = 'oidc-provider';
const { default: ProviderClass, errors } = (await import(specifier)) as ProviderModule;

function providerClient(c: TargetClient) {
  return {
    client_id: c.clientId,
    client_secret: c.clientSecret,
    grant_types: c.grantTypes,
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_post',
  };
}

/**
 * The password grant (RFC 6749 §4.3) through registerGrantType: the library authenticates the
 * client, parses and de-duplicates the parameters; this handler checks the user and issues the
 * library's own AccessToken and RefreshToken under a Grant, so that the library's built-in
 * refresh_token grant takes them.
 */
function passwordGrant(users: TargetUser[]) {
  const byUsername = new Map(users.map((u) => [u.username, u]));
  return async (ctx: OidcContext): Promise<void> => {
    const { params, client, provider } = ctx.oidc;
    if (!params.username) throw new errors.InvalidRequest("missing required parameter 'username'");
    if (!params.password) throw new errors.InvalidRequest("missing required parameter 'password'");
    const user = byUsername.get(params.username);
    if (user?.password !== params.password) throw new errors.InvalidGrant('invalid username or password');
    const requested = params.scope ? params.scope.split(' ') : passwordScopes;
    const unknown = requested.filter((s) => !passwordScopes.includes(s));
    if (unknown.length > 0) throw new errors.InvalidScope('requested scope is not allowed', unknown.join(' '));
    const scope = requested.join(' ');

    const grant = new provider.Grant({ accountId: user.username, clientId: client.clientId });
    grant.addOIDCScope(scope);
    const grantId = await grant.save();
    const fields = { accountId: user.username, client, grantId, scope, gty: 'password' };
    const accessToken = new provider.AccessToken(fields);
    const accessTokenValue = await accessToken.save();
    const refreshTokenValue = await new provider.RefreshToken(fields).save();
    ctx.body = {
      access_token: accessTokenValue,
      token_type: accessToken.tokenType,
      expires_in: accessToken.expiration,
      refresh_token: refreshTokenValue,
      scope,
    };
  };
}

export function createProvider(region: Region, issuer: string, clients: TargetClient[], users: TargetUser[]): Provider {
  const signingKey = {
    ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
    alg: 'ES256',
    use: 'sig',
  };
  const byUsername = new Set(users.map((u) => u.username));
  const provider = new ProviderClass(issuer, {
    clients: clients.filter((c) => c.region === region && c.registeredWithProvider).map(providerClient),
    jwks: { keys: [signingKey] },
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    scopes: ['openid', 'offline_access', 'email', 'profile', 'company'],
    routes: { token: tokenPaths[region] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
    },
    // The refresh_token grant asks for the account of the token (it refuses a deleted user).
    findAccount: (_ctx: unknown, accountId: string) =>
      byUsername.has(accountId) ? { accountId, claims: () => ({ sub: accountId }) } : undefined,
    cookies: { keys: [randomBytes(32).toString('base64url')] },
  });
  if (region === 'us') provider.registerGrantType('password', passwordGrant(users), ['username', 'password', 'scope']);
  return provider;
}

/**
 * The gateway's token lookup: the libraries' own token stores of both providers (what its
 * introspection does internally: expired, unknown or revoked tokens, and tokens of a revoked grant,
 * are not found).
 */
export function findProviderToken(providers: Provider[]): FindToken {
  return async (value) => {
    for (const provider of providers) {
      const token = (await provider.AccessToken.find(value)) ?? (await provider.ClientCredentials.find(value));
      if (!token) continue;
      if (token.grantId) {
        const grant = await provider.Grant.find(token.grantId);
        if (grant?.clientId !== token.clientId) return undefined;
      }
      return token;
    }
    return undefined;
  };
}
