// The grants the token service knows, by grant_type.
import { clientCredentialsGrant } from './client-credentials.ts';
import { passwordGrant } from './password.ts';
import { refreshTokenGrant } from './refresh-token.ts';
import type { Grant } from './grant.ts';

export type { Grant, GrantContext, GrantDeps, RequiredParam } from './grant.ts';
export { clientCredentialsGrant, passwordGrant, refreshTokenGrant };

export const grants: ReadonlyMap<string, Grant> = new Map(
  [clientCredentialsGrant, passwordGrant, refreshTokenGrant].map((g) => [g.grantType, g]),
);
