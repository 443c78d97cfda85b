// Region parity, as pure functions: the same requests sent to the US and the EU token endpoint,
// each answer reduced to what may be compared (never a token or a secret), then compared aspect by
// aspect. A difference is "explained" only when a rule below names the spec clause (or the target's
// declared open interpretation) that accounts for it; every other difference is "unexplained".
//
// The rules (spec = token-service-spec.md):
//   success.fields       EU has `scope` = "empty_default" and US has no `scope`, nothing else differs:
//                        §2.2 (scope "for EU client_credentials ... always the constant empty_default.
//                        Not returned by US client_credentials"), §4 rows 1-2.
//   request.unknown_scope  US answers as the target declares for OI-6 (ignored: 200 without scope;
//                        invalid_scope: 400 invalid_scope) while EU refuses with 400 invalid_scope:
//                        §2.2 (the EU scope is the constant empty_default) and RFC 6749 §3.3, OI-6.
//   request.password_grant  US issues a token while EU answers as the target declares for OI-9
//                        (unsupported_grant_type / unauthorized_client / supported): §4 notes (the EU
//                        endpoint is given for client_credentials only), OI-9.
// Where a rule expects the regions to differ, identical answers are flagged as well (the EU endpoint
// answering like the US one). Nothing else is explained: token_type ("Always Bearer", §2.2), expires_in (one client_credentials
// lifetime, §8), the token format, and the error for a missing grant_type, a wrong client secret
// or an unsupported grant type are the same service's behaviour in both regions.
import type { ParityAspect, RegionParity } from './region-parity.schema.ts';
import { consoleText } from '../../core/untrusted/neutralise.ts';

/** One answer, reduced: no token value, no secret. */
export interface ProbeAnswer {
  status: number;
  /** The OAuth `error` of a JSON error body. */
  error?: string;
  /** Member names of a JSON object body, sorted. */
  fields?: string[];
  tokenType?: string;
  expiresIn?: string;
  scope?: string;
  /** "JWT (alg EdDSA, typ at+jwt)" or "opaque"; only for an answer with an access_token. */
  tokenFormat?: string;
}

/** The requests sent to each region (the same ones, with that region's client). */
export interface RegionObservation {
  /** client_credentials with valid credentials. */
  success: ProbeAnswer;
  /** client_id and client_secret, no grant_type. */
  missingGrantType: ProbeAnswer;
  /** client_credentials with a wrong client_secret. */
  badClientSecret: ProbeAnswer;
  /** grant_type=urn:example:unsupported. */
  unsupportedGrant: ProbeAnswer;
  /** client_credentials with a scope value no target defines. */
  unknownScope: ProbeAnswer;
  /** The password grant with the region's client and the profile's user (absent without a user). */
  passwordGrant?: ProbeAnswer;
}

export interface DeclaredChoices {
  /** OI-6 (requirements/interpretations.json key usClientCredentialsScope). */
  usClientCredentialsScope: string;
  /** OI-9 (key euOtherGrants). */
  euOtherGrants: string;
  /**
   * The `scope` each region's client_credentials client sends by the profile's declared request
   * shaping (tokenParameters): a target that echoes a requested scope answers with it, which is the
   * deployment's rule, not a difference between the regions.
   */
  shapedScope?: { us?: string; eu?: string };
}

const base64urlJson = (part: string): Record<string, unknown> | undefined => {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

/** "JWT (alg …, typ …)" when the token is a compact JWS whose header decodes, else "opaque". */
export function tokenFormat(token: string): string {
  const parts = token.split('.');
  const header = parts.length === 3 ? base64urlJson(parts[0]!) : undefined;
  if (!header || typeof header.alg !== 'string') return 'opaque';
  return `JWT (alg ${header.alg}${typeof header.typ === 'string' ? `, typ ${header.typ}` : ''})`;
}

/** Reduces a raw answer to a ProbeAnswer: field names, token_type, expires_in, scope, error, token format. */
export function reduceAnswer(status: number, bodyText: string): ProbeAnswer {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    return { status };
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { status };
  const o = body as Record<string, unknown>;
  const text = (v: unknown) => (v === undefined ? undefined : typeof v === 'string' ? v : JSON.stringify(v));
  return {
    status,
    fields: Object.keys(o).sort(),
    ...(typeof o.error === 'string' ? { error: o.error } : {}),
    ...(o.token_type !== undefined ? { tokenType: text(o.token_type)! } : {}),
    ...(o.expires_in !== undefined ? { expiresIn: text(o.expires_in)! } : {}),
    ...(o.scope !== undefined ? { scope: text(o.scope)! } : {}),
    ...(typeof o.access_token === 'string' ? { tokenFormat: tokenFormat(o.access_token) } : {}),
  };
}

/** "400 invalid_client", "200 token (scope …)", "404". */
export function outcome(a: ProbeAnswer): string {
  if (a.error !== undefined) return `${a.status} ${a.error}`;
  if (a.tokenFormat !== undefined) return `${a.status} token${a.scope !== undefined ? ` (scope "${a.scope}")` : ''}`;
  return String(a.status);
}

const euScope = 'empty_default';

/**
 * One compared aspect. `differenceExpected`: the spec (or the declared choice) makes the regions
 * answer differently here, so identical answers are flagged too — the EU endpoint answering like
 * the US one is exactly what parity is meant to catch.
 */
function aspect(
  name: string,
  us: string,
  eu: string,
  explainedBy?: string,
  note?: string,
  differenceExpected = false,
): ParityAspect {
  if (us === eu) {
    return differenceExpected
      ? {
          aspect: name,
          us,
          eu,
          status: 'unexplained',
          note: `identical, but the regions should differ here: ${note ?? ''}`,
        }
      : { aspect: name, us, eu, status: 'same' };
  }
  return explainedBy !== undefined
    ? { aspect: name, us, eu, status: 'explained', clause: explainedBy }
    : { aspect: name, us, eu, status: 'unexplained', ...(note !== undefined ? { note } : {}) };
}

/** What the declared OI-6 choice makes the US endpoint answer to an unknown scope. */
const usUnknownScopeAnswer = (choice: string) => (choice === 'invalid_scope' ? '400 invalid_scope' : '200 token');
/** What the declared OI-9 choice makes the EU endpoint answer to a password grant. */
const euPasswordAnswer = (choice: string) => (choice === 'supported' ? '200' : `400 ${choice}`);

export function compareRegions(
  us: RegionObservation,
  eu: RegionObservation,
  declared: DeclaredChoices,
  endpoints: { us?: string; eu?: string } = {},
): RegionParity {
  const aspects: ParityAspect[] = [];
  aspects.push(
    aspect(
      'success.status',
      String(us.success.status),
      String(eu.success.status),
      undefined,
      'a client_credentials request with valid credentials should succeed in both regions (§4 rows 1-2)',
    ),
  );
  if (us.success.status === 200 && eu.success.status === 200) {
    const usFields = (us.success.fields ?? []).join(' ');
    const euFields = (eu.success.fields ?? []).join(' ');
    const shaped = declared.shapedScope ?? {};
    const withoutScope = (fields: string[] | undefined) => (fields ?? []).filter((f) => f !== 'scope').join(' ');
    // US: no scope (§2.2), or the one its client sends by declaration; EU: empty_default, or its client's declared one.
    const usScopeFits = us.success.scope === undefined || us.success.scope === shaped.us;
    const euScopeFits =
      eu.success.scope === euScope || (eu.success.scope !== undefined && eu.success.scope === shaped.eu);
    const onlyScope =
      withoutScope(us.success.fields) === withoutScope(eu.success.fields) &&
      (eu.success.fields ?? []).includes('scope') &&
      usScopeFits &&
      euScopeFits;
    const byShaping =
      (us.success.scope !== undefined && us.success.scope === shaped.us) || eu.success.scope !== euScope;
    aspects.push(
      aspect(
        'success.fields',
        usFields,
        euFields,
        onlyScope
          ? byShaping
            ? `the declared request shaping (tokenParameters): each region's client sends its scope and the target answers with it (RFC 6749 §3.3); otherwise §2.2 scope, EU "empty_default", US none`
            : '§2.2 scope: EU client_credentials responses carry the constant "empty_default"; US client_credentials responses carry no scope (§4 rows 1-2)'
          : undefined,
        'expected the US fields plus scope "empty_default" at the EU endpoint (§2.2)',
        // Identical fields are a finding only when no declared scope makes the US answer carry one.
        shaped.us === undefined,
      ),
    );
    aspects.push(
      aspect(
        'success.token_type',
        us.success.tokenType ?? '(absent)',
        eu.success.tokenType ?? '(absent)',
        undefined,
        '§2.2: token_type is always "Bearer"',
      ),
    );
    aspects.push(
      aspect(
        'success.expires_in',
        us.success.expiresIn ?? '(absent)',
        eu.success.expiresIn ?? '(absent)',
        undefined,
        'the spec gives one client_credentials lifetime (§8, sample 3600) for both regions',
      ),
    );
    aspects.push(
      aspect(
        'success.token_format',
        us.success.tokenFormat ?? '(no access_token)',
        eu.success.tokenFormat ?? '(no access_token)',
        undefined,
        'the spec does not say tokens differ by region',
      ),
    );
  }
  aspects.push(
    aspect(
      'error.missing_grant_type',
      outcome(us.missingGrantType),
      outcome(eu.missingGrantType),
      undefined,
      '§2.3/§7.1: the sample error is invalid_request for a missing grant_type, in both regions',
    ),
  );
  aspects.push(
    aspect(
      'error.bad_client_secret',
      outcome(us.badClientSecret),
      outcome(eu.badClientSecret),
      undefined,
      'RFC 6749 §5.2: a failed client authentication is invalid_client in both regions',
    ),
  );
  aspects.push(
    aspect(
      'error.unsupported_grant_type',
      outcome(us.unsupportedGrant),
      outcome(eu.unsupportedGrant),
      undefined,
      'OI-1 declares one error for an unsupported grant type, for both regions',
    ),
  );
  const usScope = outcome(us.unknownScope);
  const euScopeAnswer = outcome(eu.unknownScope);
  // "200 token" renders a token response without scope: what OI-6 "ignored" requires.
  const scopeExplained =
    usScope === usUnknownScopeAnswer(declared.usClientCredentialsScope) && euScopeAnswer === '400 invalid_scope';
  aspects.push(
    aspect(
      'request.unknown_scope',
      usScope,
      euScopeAnswer,
      scopeExplained
        ? `§2.2 (the EU scope is the constant "empty_default") and RFC 6749 §3.3; the US answer is the declared OI-6 choice "${declared.usClientCredentialsScope}"`
        : undefined,
      `expected US "${usUnknownScopeAnswer(declared.usClientCredentialsScope)}" (OI-6) and EU "400 invalid_scope" (GRANT-CC-007)`,
      usUnknownScopeAnswer(declared.usClientCredentialsScope) !== '400 invalid_scope',
    ),
  );
  if (us.passwordGrant && eu.passwordGrant) {
    const usPw =
      us.passwordGrant.tokenFormat !== undefined ? String(us.passwordGrant.status) : outcome(us.passwordGrant);
    const euPw =
      eu.passwordGrant.tokenFormat !== undefined ? String(eu.passwordGrant.status) : outcome(eu.passwordGrant);
    const pwExplained = usPw === '200' && euPw === euPasswordAnswer(declared.euOtherGrants);
    aspects.push(
      aspect(
        'request.password_grant',
        usPw,
        euPw,
        pwExplained
          ? `§4 notes (the EU endpoint is given for client_credentials only); the EU answer is the declared OI-9 choice "${declared.euOtherGrants}"`
          : undefined,
        `expected US 200 (GRANT-PW-001) and EU "${euPasswordAnswer(declared.euOtherGrants)}" (OI-9)`,
        euPasswordAnswer(declared.euOtherGrants) !== '200',
      ),
    );
  }
  const count = (s: ParityAspect['status']) => aspects.filter((a) => a.status === s).length;
  return {
    compared: true,
    ...(endpoints.us ? { usEndpoint: endpoints.us } : {}),
    ...(endpoints.eu ? { euEndpoint: endpoints.eu } : {}),
    aspects,
    counts: { same: count('same'), explained: count('explained'), unexplained: count('unexplained') },
  };
}

/** A parity section that says why nothing was compared. */
export function notCompared(reason: string): RegionParity {
  return { compared: false, reason, aspects: [], counts: { same: 0, explained: 0, unexplained: 0 } };
}

/** The terminal block: the answers are the target's words, each made inert on its line (consoleText). */
export function renderParity(p: RegionParity): string[] {
  if (!p.compared) return [`Region parity: not compared (${consoleText(p.reason ?? 'no reason')})`];
  const lines = [
    `Region parity (US vs EU client_credentials): ${p.counts.same} same, ${p.counts.explained} explained, ${p.counts.unexplained} unexplained`,
  ];
  for (const a of p.aspects.filter((x) => x.status !== 'same')) {
    lines.push(
      `  ${a.status === 'unexplained' ? 'UNEXPLAINED' : 'explained  '} ${consoleText(a.aspect)}: US ${consoleText(a.us)} | EU ${consoleText(a.eu)} — ${consoleText((a.status === 'explained' ? a.clause : a.note) ?? '')}`,
    );
  }
  return lines;
}
