// The profile `init` writes: JSONC with a comment on every field, its secrets environment variable
// references, from the answers the flags (or the questions) gave.
import { tokenParametersJson, type ClientTokenParameters } from '../../init/token-parameters-flag.ts';

/** A name as the part of an environment variable's name: `usClient` → `US_CLIENT`. */
export const screaming = (s: string): string =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase()
    .replace(/^_+|_+$/g, '');

export interface InitResult {
  text: string;
  exports: string[];
}

/** The profile text and the variables it references, from parsed flags. */
export interface ProfileAnswers {
  name: string;
  authUrlUs?: string;
  authUrlEu?: string;
  baseUrl?: string;
  caFile?: string;
  environment?: string;
  local: boolean;
  clients: Map<string, string>;
  users: Map<string, string>;
  envPrefix: string;
  /** Per client: the parameters to write, and whether the target issued a token with them. */
  tokenParameters?: Map<string, { parameters: ClientTokenParameters; verified: boolean }>;
  people?: { existing: string; missing?: string; malformed?: string };
  ccLifetime?: number;
  pwLifetime?: number;
  supportsBasic?: boolean;
  rateLimit?: { spikePerSecond?: number; quotaPerWindow?: number; windowSeconds?: number };
  allowLoad?: boolean;
  allowDestructive?: boolean;
  state?: { file: string; keyEnv: string };
}

export function renderProfile(v: ProfileAnswers): InitResult {
  const exports: string[] = [];
  const secret = (name: string, kind: string): string => {
    const variable = `${v.envPrefix}${screaming(name)}_${kind}`;
    exports.push(variable);
    return JSON.stringify({ env: variable });
  };
  const secretOf = (variable: string): string => {
    exports.push(variable);
    return JSON.stringify({ env: variable });
  };
  const line = (key: string, value: string | undefined, comment: string): string =>
    value === undefined
      ? `  // "${key}": "…",  ${comment}`
      : `  ${JSON.stringify(key)}: ${JSON.stringify(value)},  ${comment}`;
  const clients = [...v.clients].map(([n, id]) => {
    const shaped = v.tokenParameters?.get(n);
    const parameters = shaped ? `, "tokenParameters": ${JSON.stringify(tokenParametersJson(shaped.parameters))}` : '';
    const why = shaped
      ? `      // ${n}: tokenParameters ${shaped.verified ? 'verified by init (the target issued a token with them)' : 'as given, not verified by init'}\n`
      : '';
    return `${why}      ${JSON.stringify(n)}: { "clientId": ${JSON.stringify(id)}, "clientSecret": ${secret(n, 'SECRET')}${parameters} }`;
  });
  const users = [...v.users].map(
    ([n, u]) =>
      `      ${JSON.stringify(n)}: { "username": ${JSON.stringify(u)}, "password": ${secret(n, 'PASSWORD')} }`,
  );
  const stateKey = v.state ? secretOf(v.state.keyEnv) : undefined;
  const text =
    [
      `// Target profile "${v.name}", written by \`token-conformance init\`. Fields: profiles/README.md`,
      '// (in the installed package: node_modules/token-conformance/profiles/README.md).',
      '// Secrets are environment variable references; set them before a run:',
      ...exports.map((e) => `//   export ${e}=…`),
      '{',
      `  "name": ${JSON.stringify(v.name)},`,
      `  "local": ${v.local},  // true only for a throw-away local target (literal secrets, http://)`,
      line('environment', v.environment, '// sandbox | production: the environment the credentials belong to'),
      '  // Origins (no path). An address left out makes its checks NOT_APPLICABLE.',
      line('authUrlUs', v.authUrlUs, '// US token server; /api/v1/auth/oauth2/token is appended'),
      line('authUrlEu', v.authUrlEu, '// EU token server; /oauth2/default/v1/token is appended'),
      line('baseUrl', v.baseUrl, '// the protected APIs behind the gateway (/v1/…)'),
      line('caFile', v.caFile, '// PEM of a private CA (relative to this file); TLS is always verified'),
      '  // The clients and users that exist on the target; a check needing one that is absent SKIPs',
      '  // and names it. Names: profiles/README.md, "Clients" and "Users".',
      '  "credentials": {',
      '    "clients": {',
      clients.join(',\n'),
      '    },',
      '    "users": {',
      users.join(',\n'),
      '    }',
      '  },',
      '  // Identifiers for GET /v1/people/er/{identifier}: without them the gateway and bearer checks SKIP.',
      ...(v.people && (v.people.missing === undefined || v.people.malformed === undefined)
        ? [
            `  // Without ${[v.people.missing === undefined && 'a missing', v.people.malformed === undefined && 'a malformed'].filter(Boolean).join(' or ')} identifier, the checks that need one SKIP naming the field.`,
          ]
        : []),
      v.people
        ? `  "resources": { "people": ${JSON.stringify(v.people).replace(/,"/g, ', "').replace(/":/g, '": ')} },`
        : '  // "resources": { "people": { "existing": "…", "missing": "…", "malformed": "…" } },',
      '  "capabilities": {',
      `    "supportsBasic": ${v.supportsBasic === true},  // the token endpoints take HTTP Basic client authentication`,
      // Known rate limits are checked by passing them: the budget leaves room for a burst past the spike and one window's quota.
      v.rateLimit
        ? `    "load": { "allowed": true, ${rateLimitLoad(v.rateLimit)} },  // load-like checks (bursts), within this budget`
        : `    "load": { "allowed": ${v.allowLoad === true} },  // load-like checks (bursts) within maxRequestsPerSecond / maxRequests (default 10/s, 200)`,
      `    "destructive": { "allowed": ${v.allowDestructive === true} },  // checks that may lock the lockable user`,
      v.rateLimit
        ? `    "rateLimit": ${JSON.stringify(v.rateLimit).replace(/,"/g, ', "').replace(/":/g, '": ')}`
        : '    // "rateLimit": { "spikePerSecond": …, "quotaPerWindow": …, "windowSeconds": … }  // when known',
      '    // "lockout": "per-principal",  // failed logins lock out only the client or user named (or "none"): a distant run starts their lanes with the other checks',
      '    // "clockControlUrl": "…"  // a test clock: the time-dependent checks run at once',
      '  },',
      '  // Token lifetimes the target must issue (expires_in); left out, any positive lifetime passes.',
      `  "expectations": { ${[v.ccLifetime !== undefined ? `"ccLifetime": ${v.ccLifetime}` : '', v.pwLifetime !== undefined ? `"pwLifetime": ${v.pwLifetime}` : ''].filter(Boolean).join(', ')} },`,
      ...(v.state
        ? [
            '  // Obligations without clock control: a run records what must hold later, a later run settles it.',
            `  "state": { "file": ${JSON.stringify(v.state.file)}, "key": ${stateKey!} },`,
          ]
        : ['  // "state": { "file": "staging.state", "key": { "env": "…" } },  // verifies expiry over several runs']),
      "  // Where the spec is silent the suite checks the reference server's choice unless the target",
      '  // declares its own here (keys and values: requirements/interpretations.json). Nothing is',
      '  // declared: add only the choices you know the target makes.',
      '  "interpretations": {}',
      '}',
      '',
    ]
      .filter((l) => l !== '')
      .join('\n') + '\n';
  return { text, exports };
}

/** A load budget that passes the declared limits: a burst past the spike, one window's quota at the checks' pace. */
function rateLimitLoad(r: NonNullable<ProfileAnswers['rateLimit']>): string {
  const spike = r.spikePerSecond ?? 0;
  const quota = r.quotaPerWindow ?? 0;
  const quotaPace = r.windowSeconds !== undefined ? Math.ceil((quota + 1) / r.windowSeconds) : 0;
  const perSecond = Math.max(2 * spike, quota > 0 ? quotaPace : 0) + 10;
  return `"maxRequestsPerSecond": ${perSecond}, "maxRequests": ${2 * quota + 4 * spike + 200}`;
}
