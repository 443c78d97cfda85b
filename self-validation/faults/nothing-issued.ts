// "Nothing is issued": a deployment rule refuses every token request that would succeed (403, empty
// body, as a gateway in front of a real server does for requests without its required `scope`),
// while every refusal stays as it was. Only the issuance requirements may FAIL; every check that
// expects a variant of a token request to succeed (an escape, HTTP Basic, a charset, another path,
// an extra parameter, a declared outcome that issues a token) must first see its plain request
// fail here and be BLOCKED by that request's requirement, never FAIL (fixtures/clients/control.ts).
import type { Fault } from '../fault.ts';
import { isToken, tokenBody } from './helpers.ts';

/** The checks that expect a variant of a token request to succeed, beside the issuance checks. */
const variantChecks = [
  'TOKEN-REQ-002',
  'TOKEN-REQ-007',
  'TOKEN-REQ-012',
  'AUTH-CLI-002',
  'AUTH-CLI-011',
  'AUTH-CLI-012',
  'AUTH-CLI-013',
  'VER-001',
  'VER-004',
  'GRANT-CC-006',
  'GRANT-CC-008',
  'GRANT-CC-010',
  'GRANT-RT-001',
  'LIMIT-AT-LIFETIME-003',
  'STATE-CC-001',
  'STATE-PW-001',
  'STATE-PW-002',
];

export const nothingIssuedFaults: Fault[] = [
  {
    id: 'nothing-issued',
    title: 'every token request that would succeed is refused with 403 and an empty body; refusals unchanged',
    breaks: ['GRANT-CC-001', 'GRANT-CC-002', 'GRANT-PW-001'],
    alsoRun: variantChecks,
    create: () => ({
      onResponse: (res, _req, ctx) =>
        isToken(ctx) && tokenBody(res)
          ? { status: 403, headers: { 'content-length': '0', 'cache-control': 'no-store' }, body: Buffer.alloc(0) }
          : res,
    }),
  },
];
