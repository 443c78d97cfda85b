// The token endpoint's decision procedure, independent of HTTP. The HTTP layer has already
// checked the method, the media type and the form syntax (duplicates, escapes, UTF-8).
// Precedence (OI-19): syntax (invalid_request) > client authentication (invalid_client) >
// grant type (unsupported_grant_type, unauthorized_client) > grant (invalid_grant) > scope.
import {
  authenticateClient,
  checkClientAuthSyntax,
  param,
  type PresentedAuthorization,
  type TokenParams,
} from './client-auth.ts';
import { InvalidRequest, UnauthorizedClient, UnsupportedGrantType, descriptions } from './errors.ts';
import { grants as knownGrants, type Grant, type GrantDeps } from './grants/index.ts';
import type { TokenResponseBody } from './issue.ts';
import type { Region } from './model.ts';
import type { SecretHasher } from './ports.ts';

export interface TokenRequest {
  region: Region;
  params: TokenParams;
  authorization: PresentedAuthorization;
  /** The caller's network address, for the brute-force bounds (attempt-throttle.ts); undefined is one shared source. */
  source?: string;
}

export interface TokenResult {
  body: TokenResponseBody;
  clientId: string;
  grantType: Grant['grantType'];
}

export type TokenServiceDeps = Omit<GrantDeps, 'dummyHash'> & { hasher: SecretHasher };

export class TokenService {
  readonly #deps: GrantDeps;
  readonly #grants: ReadonlyMap<string, Grant>;
  #dummy: Promise<string> | undefined;

  constructor(deps: TokenServiceDeps, grants: ReadonlyMap<string, Grant> = knownGrants) {
    this.#deps = { ...deps, dummyHash: () => (this.#dummy ??= deps.hasher.hash(deps.random.token(32))) };
    this.#grants = grants;
  }

  async handle(request: TokenRequest): Promise<TokenResult> {
    const { params, region, authorization } = request;
    const grantType = param(params, 'grant_type');
    if (grantType === undefined) throw new InvalidRequest(descriptions.missingGrantType);
    checkClientAuthSyntax(authorization, params);
    const candidate = this.#grants.get(grantType);
    const grant = candidate?.regions.includes(region) ? candidate : undefined;
    for (const required of grant?.requiredParams ?? []) {
      if (param(params, required.name) === undefined) throw new InvalidRequest(required.missing);
    }

    // The clock's one reading for this request (client lock, grant, expiry).
    const now = this.#deps.clock.now();
    const client = await authenticateClient(this.#deps, region, authorization, params, now, request.source);
    if (!grant)
      throw new UnsupportedGrantType(
        descriptions.unsupportedGrantType,
        candidate ? `${candidate.grantType} not offered in ${region}` : 'unknown grant_type',
      );
    if (!client.grants.includes(grant.grantType))
      throw new UnauthorizedClient(descriptions.unauthorizedClient, `grant ${grant.grantType} not allowed`);

    const body = await grant.handle({
      client,
      params,
      region,
      now,
      deps: this.#deps,
      ...(request.source !== undefined && { source: request.source }),
    });
    return { body, clientId: client.clientId, grantType: grant.grantType };
  }
}
