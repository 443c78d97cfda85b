// One-field shape deviations of an issued token: each FAILs only that field's requirement (token_type:
// token-type-lowercase in token-responses.ts, with the same checks beside it). Every
// check that obtains or judges an issued token in another respect runs beside it (`alsoRun`) and
// must PASS: the success checks assert only what their statements say, and the lifecycle model
// without a clock carries on past a lifetime it cannot verify.
import type { Fault } from '../fault.ts';
import { withJson } from '../proxy.ts';
import { grantOf, isToken, tokenBody } from './helpers.ts';

/** A fault that rewrites one member of the successful token responses of the given grants. */
const rewriteMember = (
  id: string,
  title: string,
  breaks: string[],
  grants: string[],
  edit: (body: Record<string, unknown>) => Record<string, unknown>,
  alsoRun: string[],
): Fault => ({
  id,
  title,
  breaks,
  alsoRun,
  create: () => ({
    onResponse(res, req, ctx) {
      const body = isToken(ctx) && grants.includes(grantOf(req) ?? '') ? tokenBody(res) : undefined;
      return body ? withJson(res, edit(body)) : res;
    },
  }),
});

/** The checks whose statements name an issued token but not this member. */
export const successChecks = ['GRANT-CC-001', 'GRANT-CC-002', 'GRANT-PW-001', 'GRANT-RT-001'];

export const oneFieldFaults: Fault[] = [
  rewriteMember(
    'one-field-password-expires-in',
    'password and refresh responses state expires_in 3600 instead of the declared 604800 (the token itself unchanged)',
    ['LIMIT-AT-LIFETIME-003'],
    ['password', 'refresh_token'],
    (b) => ({ ...b, expires_in: 3600 }),
    [...successChecks, 'GRANT-RT-002', 'STATE-CC-001', 'STATE-PW-001', 'STATE-PW-002', 'STATE-AT-AFTER-REFRESH-001'],
  ),
  rewriteMember(
    'one-field-password-scope',
    'the password grant\'s response states scope "openid" instead of the granted set (the token itself unchanged)',
    ['GRANT-PW-002'],
    ['password'],
    (b) => ({ ...b, scope: 'openid' }),
    successChecks,
  ),
];
