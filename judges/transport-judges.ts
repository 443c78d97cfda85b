// Judges of the transport one exchange shows (spec §6): no answer of substance over plain HTTP,
// HSTS on every HTTPS answer of the service.
import { tokenErrorCodes } from '../schemas/src/token-error.ts';
import type { Classified } from './classify.ts';
import { jsonObjectOf } from './exchange.ts';
import { seen, type Judge, type Seen } from './judge.ts';

const serviceExchange = (c: Classified) => c.kind !== 'clock' && c.kind !== 'other' && c.url !== undefined;
const what = (c: Classified) => (c.kind === 'protected' ? 'protected call' : 'token request');

const onTransport = (
  requirement: string,
  rule: (c: Classified) => Seen | undefined,
  extra: Pick<Judge, 'activeHalf'> = {},
): Judge => ({
  requirement,
  needs: 'exchange',
  ...extra,
  judge: ({ c }) => (serviceExchange(c) && c.exchange.response ? rule(c) : undefined),
});

export const transportJudges: Judge[] = [
  // Evaluated over plain HTTP: a success, a token, or the answer only the service writes — an OAuth
  // error (RFC 6749 §5.2) from a token endpoint, a gateway code from the API. A redirect (to HTTPS)
  // or a refusal of another kind shows no evaluation.
  onTransport(
    'SEC-TLS-002',
    (c) => {
      if (c.url!.protocol !== 'http:') return undefined;
      const res = c.exchange.response!;
      const text = res.body.text ?? '';
      const redirect = res.status >= 300 && res.status < 400;
      const oauthError = jsonObjectOf(res.body)?.error;
      const serviceAnswer =
        c.kind === 'protected'
          ? /\b000-\d{4}\b/.exec(text)?.[0]
          : (tokenErrorCodes as readonly string[]).includes(String(oauthError))
            ? String(oauthError)
            : undefined;
      const evidence = text.includes('access_token')
        ? 'with an access_token'
        : res.status >= 200 && res.status < 300
          ? '(a success)'
          : !redirect && serviceAnswer !== undefined
            ? c.kind === 'protected'
              ? `with gateway code ${serviceAnswer}`
              : `with the token endpoint's error ${JSON.stringify(serviceAnswer)}`
            : undefined;
      return seen(
        evidence === undefined,
        () =>
          `a ${what(c)} over plain HTTP was answered ${res.status} ${evidence ?? ''}: the service evaluated it there`,
      );
    },
    {
      activeHalf:
        'a connection refused or reset at the plain-HTTP address passes: it leaves no exchange to judge (nor anything a recording keeps), so the check that sent there says so itself',
    },
  ),
  onTransport('SEC-TLS-005', (c) => {
    if (c.url!.protocol === 'http:') return undefined;
    const res = c.exchange.response!;
    const hsts = res.headers.find(([n]) => n.toLowerCase() === 'strict-transport-security')?.[1];
    // RFC 6797 §6.1: the header without a max-age directive is no HSTS policy.
    return seen(
      hsts !== undefined && /(^|;)\s*max-age\s*=\s*"?\d+/i.test(hsts),
      () =>
        `an HTTPS answer (${res.status}) of the ${c.kind === 'protected' ? 'protected API' : 'token endpoint'} carries ${hsts === undefined ? 'no Strict-Transport-Security' : `Strict-Transport-Security "${hsts}" without max-age`}`,
    );
  }),
];
