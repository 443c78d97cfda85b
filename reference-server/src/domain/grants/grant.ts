// The shape every grant exports (after node-oidc-provider's lib/actions/grants): its grant_type,
// the regions whose endpoint offers it, the parameters it requires, and its handler.
import type { AttemptThrottle } from '../attempt-throttle.ts';
import type { PublicDescription } from '../errors.ts';
import type { TokenParams } from '../client-auth.ts';
import type { IssueDeps, TokenResponseBody } from '../issue.ts';
import type { Client, GrantType, Region } from '../model.ts';
import type { SecretHasher } from '../ports.ts';

export interface GrantDeps extends IssueDeps {
  hasher: SecretHasher;
  dummyHash: () => Promise<string>;
  /** Brute-force protection: consecutive failed passwords per username, failed client authentications per client_id. */
  throttle: AttemptThrottle;
}

export interface GrantContext {
  client: Client;
  params: TokenParams;
  region: Region;
  /** The clock's reading for this request: one instant per request. */
  now: number;
  deps: GrantDeps;
  /** The caller's network address (attempt-throttle.ts); undefined is one shared source. */
  source?: string;
}

export interface RequiredParam {
  name: string;
  /** The invalid_request description when it is missing or empty. */
  missing: PublicDescription;
}

export interface Grant {
  readonly grantType: GrantType;
  readonly regions: readonly Region[];
  readonly requiredParams: readonly RequiredParam[];
  handle(ctx: GrantContext): Promise<TokenResponseBody>;
}
