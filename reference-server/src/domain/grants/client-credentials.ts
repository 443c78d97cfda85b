// grant_type=client_credentials (RFC 6749 §4.4; spec §4 rows 1-2). No refresh token, ever.
// US: no `scope` in the response and a `scope` parameter is ignored (OI-6).
// EU: `scope` is always `empty_default`; requesting anything else is invalid_scope.
import { narrowScope, parseScope } from '../scope.ts';
import { baseClaims, issueAccessToken, type TokenResponseBody } from '../issue.ts';
import type { Grant } from './grant.ts';

export const clientCredentialsGrant: Grant = {
  grantType: 'client_credentials',
  regions: ['us', 'eu'],
  requiredParams: [],
  async handle({ client, params, region, now, deps }): Promise<TokenResponseBody> {
    const lifetime = deps.settings.clientCredentialsLifetimeSeconds;
    const claims = {
      sub: client.clientId,
      ...baseClaims(client, region, deps.environment),
      grant: 'client_credentials' as const,
    };
    if (region === 'eu') {
      const scope = narrowScope([deps.settings.euDefaultScope], parseScope(params.get('scope')));
      const token = await issueAccessToken(deps, { ...claims, scope: scope.join(' ') }, now, lifetime);
      return {
        access_token: token.token,
        token_type: 'Bearer',
        expires_in: lifetime,
        scope: deps.settings.euDefaultScope,
      };
    }
    const token = await issueAccessToken(deps, claims, now, lifetime);
    return { access_token: token.token, token_type: 'Bearer', expires_in: lifetime };
  },
};
