// Who a verified access token speaks for. client_credentials tokens speak for the client;
// password and refresh_token tokens for the user named by `sub` (`tenant\userName`), through
// the client named by `client_id`.
import type { VerifiedAccessToken } from '../domain/ports.ts';

export type Principal =
  { kind: 'client'; clientId: string } | { kind: 'user'; clientId: string; tenant: string; userName: string };

export function principalOf(token: VerifiedAccessToken): Principal {
  if (token.grant === 'client_credentials') return { kind: 'client', clientId: token.client_id };
  const separator = token.sub.indexOf('\\');
  return separator < 0
    ? { kind: 'user', clientId: token.client_id, tenant: '', userName: token.sub }
    : {
        kind: 'user',
        clientId: token.client_id,
        tenant: token.sub.slice(0, separator),
        userName: token.sub.slice(separator + 1),
      };
}
