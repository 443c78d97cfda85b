// Faults of transport and versioning (spec §1, §9; RFC 9700 §4.x): plain HTTP, old TLS, HSTS, version paths.
import type { Fault } from '../fault.ts';
import { withoutHeader } from '../proxy.ts';

export const transportFaults: Fault[] = [
  {
    id: 'plain-http-accepted',
    title: 'the target also answers on plain HTTP and issues tokens there',
    breaks: ['SEC-TLS-002'],
    create: () => ({ plainHttp: true }),
  },
  {
    id: 'endpoints-over-plain-http',
    title:
      "the token endpoints and the protected API of a deployment are served over plain HTTP (the profile's addresses are http://, the target not marked local)",
    breaks: ['SEC-TLS-001'],
    // Not local: a target the profile marks local may be plain http (SEC-TLS-001 NOT_APPLICABLE naming `local`).
    addressesOverPlainHttp: true,
    // SEC-TLS-004/005 must read BLOCKED by SEC-TLS-001 (no handshake to judge, no HSTS over plain HTTP: RFC 6797 §7.2), never FAIL.
    onlyChecksOf: ['SEC-TLS-001', 'SEC-TLS-004', 'SEC-TLS-005'],
    create: () => ({ plainHttp: true }),
  },
  {
    id: 'tls-1.0-accepted',
    title: 'TLS 1.0 and 1.1 handshakes accepted',
    breaks: ['SEC-TLS-004'],
    create: () => ({ tls: { minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' } }),
  },
  {
    id: 'hsts-stripped',
    title: 'Strict-Transport-Security removed from every response',
    breaks: ['SEC-TLS-005'],
    create: () => ({
      onResponse: (res) => ({ ...res, headers: withoutHeader(res.headers, 'strict-transport-security') }),
    }),
  },
  {
    id: 'token-version-not-checked',
    title: 'the token path of any version (/api/v2/…) is served as v1',
    breaks: ['VER-004'],
    create: () => ({
      onRequest: (req, ctx) =>
        ctx.kind === 'token-other-version' ? { ...req, path: req.path.replace(/^\/api\/v[^/]*\//, '/api/v1/') } : req,
    }),
  },
  {
    id: 'eu-token-path-missing',
    title: 'the EU token path /oauth2/default/v1/token answers 404',
    breaks: ['VER-001'],
    collateral: {
      ids: ['TOKEN-RESP-001', 'ERR-TOK-004', 'GRANT-CC-002'],
      reason:
        'their EU checks send token requests to the EU token path the fault removes (GRANT-CC-002: the EU client_credentials grant, the blocker the EU success samples name)',
    },
    create: () => ({
      onRequest: (req, ctx) =>
        ctx.kind === 'token-eu'
          ? {
              respond: {
                status: 404,
                headers: { 'content-type': 'application/json' },
                body: Buffer.from('{"message":"Not Found"}'),
              },
            }
          : req,
    }),
  },
];
