// Declaration faults: the target is left as it is (an empty proxy), and the profile declares an
// interpretation the reference does not follow (requirements/interpretations.json). The check of an
// INTERPRETATION requirement must follow the declaration, so under such a fault it must FAIL the
// reference: this proves the check reads the declaration and can fail on either side of it (the
// clean run proves the other side). A target that does not do what it declares is the bug these stand for.
import type { Fault } from '../fault.ts';

const declaration = (
  id: string,
  title: string,
  breaks: string[],
  declare: Record<string, unknown>,
  extra: Partial<Fault> = {},
): Fault => ({ id, title, breaks, declare, ...extra, create: () => ({}) });

export const declarationFaults: Fault[] = [
  declaration(
    'declared-unregistered-client-refused',
    'the profile declares unregisteredClient=unauthorized_client; the target issues the token',
    ['GRANT-CC-006'],
    { unregisteredClient: 'unauthorized_client' },
  ),
  declaration(
    'declared-us-cc-scope-refused',
    'the profile declares usClientCredentialsScope=invalid_scope; the target ignores the scope',
    ['GRANT-CC-008'],
    { usClientCredentialsScope: 'invalid_scope' },
  ),
  declaration(
    'declared-cross-region-accepted',
    'the profile declares crossRegionCredentials=accepted; the target refuses them',
    ['GRANT-CC-010'],
    { crossRegionCredentials: 'accepted' },
  ),
  declaration(
    'declared-eu-other-grants-unauthorized',
    'the profile declares euOtherGrants=unauthorized_client; the target answers unsupported_grant_type',
    ['GRANT-PW-010', 'GRANT-RT-011'],
    { euOtherGrants: 'unauthorized_client' },
  ),
  declaration(
    'declared-access-token-revoked-on-refresh',
    'the profile declares accessTokenAfterRefresh=revoked; the target keeps the earlier access token valid',
    ['STATE-AT-AFTER-REFRESH-001'],
    { accessTokenAfterRefresh: 'revoked' },
  ),
  declaration(
    'declared-eu-tokens-rejected',
    'the profile declares euTokensAtBaseUrl=rejected; the target accepts EU tokens at {base_url}',
    ['BEARER-016'],
    { euTokensAtBaseUrl: 'rejected' },
  ),
  declaration(
    'declared-malformed-form-lenient',
    'the profile declares malformedFormBody=lenient; the target refuses a malformed %-escape with invalid_request',
    ['TOKEN-REQ-013'],
    { malformedFormBody: 'lenient' },
    { withProperties: true },
  ), // only the token-endpoint input property cites TOKEN-REQ-013
  declaration(
    'declared-refresh-scope-original',
    'the profile declares refreshScopeBeyondGrant=original-scope; the target refuses with invalid_scope',
    ['GRANT-RT-014'],
    { refreshScopeBeyondGrant: 'original-scope' },
    { alsoRun: ['GRANT-RT-004'] },
  ), // refusing is never an escalation: GRANT-RT-004 PASSes
  declaration(
    'declared-client-id-mismatch-invalid-client',
    'the profile declares clientIdMismatchError=invalid_client; the target refuses a body client_id naming another client than HTTP Basic with invalid_request',
    ['AUTH-CLI-012'],
    { clientIdMismatchError: 'invalid_client' },
    {
      collateral: {
        ids: ['AUTH-CLI-013'],
        reason:
          "its HTTP Basic variant beside a body client_id is also a mismatch, so the target's invalid_request is judged against the declared invalid_client there too",
      },
    },
  ),
];
