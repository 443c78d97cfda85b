// Faults of the token request (spec §4, §2.1; RFC 6749 §3.2): the target accepts what it must refuse,
// or refuses what it must accept. Behavioural: the proxy rewrites the request before forwarding.
import type { Fault } from '../fault.ts';
import { header, jsonOf, withForm } from '../proxy.ts';
import { fields, isToken, tokenError } from './helpers.ts';

const formType = 'application/x-www-form-urlencoded';

const getAnswered404 = (): ReturnType<Fault['create']> => ({
  onRequest: (req, ctx) =>
    isToken(ctx) && req.method === 'GET'
      ? { respond: { status: 404, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Not Found') } }
      : req,
});

export const tokenRequestFaults: Fault[] = [
  {
    id: 'get-answered-404',
    title: 'a GET to a token endpoint answered 404 text/plain instead of the declared refusal',
    breaks: ['TOKEN-REQ-001'],
    create: getAnswered404,
  },
  {
    // The same target with OI-12 undeclared: the 405 is only assumed, so TOKEN-REQ-001 (a MUST) reads
    // WARN naming the field, never FAIL — in the dedicated checks and the token-input property alike.
    id: 'get-answered-404-assumed',
    title: 'a GET answered 404 while the profile declares no nonPostTokenRequest (assumed 405)',
    breaks: ['TOKEN-REQ-001'],
    undeclare: ['nonPostTokenRequest'],
    breaksAs: 'WARN',
    withProperties: true,
    create: getAnswered404,
  },
  {
    // A refusal no reading of OI-12 allows (403, no body), OI-12 undeclared: the dedicated checks and
    // the token-input property alike read WARN naming the field, since the rule is judged on an
    // assumption; an assumed choice never FAILs, in a property either.
    id: 'get-answered-403-empty-assumed',
    title: 'a GET answered 403 with no body while the profile declares no nonPostTokenRequest',
    breaks: ['TOKEN-REQ-001'],
    undeclare: ['nonPostTokenRequest'],
    breaksAs: 'WARN',
    withProperties: true,
    create: () => ({
      onRequest: (req, ctx) =>
        isToken(ctx) && req.method === 'GET' ? { respond: { status: 403, headers: {}, body: Buffer.alloc(0) } } : req,
    }),
  },
  {
    id: 'charset-refused',
    title: 'a form with ;charset=UTF-8 refused with 400 invalid_request',
    breaks: ['TOKEN-REQ-002'],
    create: () => ({
      onRequest: (req, ctx) =>
        isToken(ctx) && /charset/i.test(header(req.headers, 'content-type') ?? '')
          ? { respond: tokenError(400, 'invalid_request', 'unsupported content type') }
          : req,
    }),
  },
  {
    id: 'json-body-accepted',
    title: 'a JSON token request converted to a form and accepted',
    breaks: ['TOKEN-REQ-003'],
    create: () => ({
      onRequest(req, ctx) {
        if (!isToken(ctx) || !(header(req.headers, 'content-type') ?? '').toLowerCase().startsWith('application/json'))
          return req;
        const body = jsonOf(req.body);
        if (!body) return req;
        return withForm(
          { ...req, headers: { ...req.headers, 'content-type': formType } },
          Object.entries(body).map(([k, v]) => [k, String(v)]),
        );
      },
    }),
  },
  {
    id: 'duplicates-accepted',
    title: 'repeated form parameters de-duplicated (first kept) and accepted',
    breaks: ['TOKEN-REQ-005'],
    create: () => ({
      onRequest(req, ctx) {
        const f = fields(req);
        if (!isToken(ctx) || f.length === 0) return req;
        const seen = new Set<string>();
        const unique = f.filter(([k]) => (seen.has(k) ? false : (seen.add(k), true)));
        return unique.length === f.length ? req : withForm(req, unique);
      },
    }),
  },
  {
    id: 'empty-grant-type-error',
    title: 'an empty grant_type answered unsupported_grant_type instead of invalid_request',
    breaks: ['TOKEN-REQ-006'],
    create: () => ({
      onRequest: (req, ctx) =>
        isToken(ctx) && fields(req).some(([k, v]) => k === 'grant_type' && v === '')
          ? { respond: tokenError(400, 'unsupported_grant_type') }
          : req,
    }),
  },
  {
    id: 'unknown-parameter-refused',
    title: 'a token request with an unknown parameter refused with invalid_request',
    breaks: ['TOKEN-REQ-007'],
    create: () => ({
      onRequest: (req, ctx) =>
        isToken(ctx) && fields(req).some(([k]) => k === 'foo')
          ? { respond: tokenError(400, 'invalid_request', 'unknown parameter') }
          : req,
    }),
  },
  {
    id: 'query-credentials-accepted',
    title: 'client_id and client_secret in the query string moved into the body and accepted',
    breaks: ['TOKEN-REQ-008'],
    create: () => ({
      onRequest(req, ctx) {
        if (!isToken(ctx) || !req.path.includes('?')) return req;
        const [path, query] = req.path.split('?', 2) as [string, string];
        const extra = [...new URLSearchParams(query)].filter(([k]) => k === 'client_id' || k === 'client_secret');
        if (extra.length === 0) return req;
        const f = fields(req).filter(([k]) => k !== 'client_id' && k !== 'client_secret');
        return withForm({ ...req, path, headers: { ...req.headers, 'content-type': formType } }, [...f, ...extra]);
      },
    }),
  },
  {
    id: 'missing-grant-type-accepted',
    title: 'a token request without grant_type treated as client_credentials',
    breaks: ['TOKEN-REQ-009'],
    collateral: {
      ids: [
        'ERR-TOK-001',
        'ERR-TOK-002',
        'ERR-TOK-003',
        'ERR-TOK-005',
        'ERR-TOK-006',
        'ERR-TOK-008',
        'TOKEN-RESP-008',
        'TOKEN-REQ-002',
      ],
      reason:
        'the "every token error" checks include the condition "grant_type missing", which now succeeds; TOKEN-REQ-002 compares a request with and without ;charset=UTF-8 for two cases, and its error case is "a request without grant_type", whose setup assertion (no token without the charset) now fails',
    },
    create: () => ({
      onRequest(req, ctx) {
        const f = fields(req);
        if (
          !isToken(ctx) ||
          f.length === 0 ||
          f.some(([k]) => k === 'grant_type') ||
          !f.some(([k]) => k === 'client_id')
        )
          return req;
        return withForm(req, [['grant_type', 'client_credentials'], ...f]);
      },
    }),
  },
  {
    id: 'escaped-fields-refused',
    title: 'form fields with %XX escapes of ordinary characters refused with invalid_client',
    breaks: ['TOKEN-REQ-012'],
    create: () => ({
      onRequest: (req, ctx) =>
        isToken(ctx) && /client_id=[^&]*%(?:[46][1-9A-Fa-f]|[57][0-9Aa])/.test(req.body.toString('utf8'))
          ? { respond: tokenError(400, 'invalid_client', 'unknown client') }
          : req,
    }),
  },
];
