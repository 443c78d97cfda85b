// Step 12 of the decision order: may this principal call this API?
// client_credentials tokens are authorized by the client's Data Services registration (spec §5.3):
// no registration is 000-1100. Users are authorized by their role. A role that does not grant
// the API is 000-1101. Both carry an `insufficient_scope` challenge (RFC 6750 §3.1).
// A principal missing from the store is not decided here: the backend answers it with 000-5002.
import type { ApiName } from './api-routes.ts';
import { bearerChallenge } from './bearer-challenge.ts';
import type { GatewayStore } from './gateway-deps.ts';
import { reject } from './gateway-rejection.ts';
import type { GatewayRejection } from './gateway-rejection.ts';
import type { Principal } from './principal.ts';

const readerApis: readonly ApiName[] = ['get-person', 'search-people', 'person-history'];

/** Which APIs each role grants; any other role grants none. */
export const rolePermissions: ReadonlyMap<string, ReadonlySet<ApiName>> = new Map([
  ['people-reader', new Set(readerApis)],
  ['people-writer', new Set<ApiName>([...readerApis, 'add-note'])],
]);

const forbiddenHeaders = { 'www-authenticate': bearerChallenge('insufficient_scope') };

export async function authorize(
  principal: Principal,
  api: ApiName,
  store: Pick<GatewayStore, 'findClient' | 'findUser'>,
): Promise<GatewayRejection | undefined> {
  let role: string;
  if (principal.kind === 'client') {
    const client = await store.findClient(principal.clientId);
    if (client === undefined) return undefined;
    if (client.registration === null)
      return reject('000-1100', { headers: forbiddenHeaders, detail: 'client not registered with Data Services' });
    role = client.registration.role;
  } else {
    const user = await store.findUser(principal.tenant, principal.userName);
    if (user === undefined) return undefined;
    role = user.role;
  }
  if (rolePermissions.get(role)?.has(api) === true) return undefined;
  return reject('000-1101', { headers: forbiddenHeaders, detail: `role does not grant ${api}` });
}
