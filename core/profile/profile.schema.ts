// The target profile: what the suite needs to know about a target. This zod schema is the source
// of truth; schemas/target-profile.schema.json is emitted from it (emit-schema.ts) and a test
// fails when the file is stale. The allowed `interpretations` come from
// requirements/interpretations.json, never duplicated here.
import { z } from 'zod';
import { createAjv, formatErrors } from '../../schemas/index.ts';
import { loadInterpretations, type InterpretationOption } from '../catalogue/catalogue.ts';
import { tokenParametersSchema } from './token-parameters.ts';

/** A secret taken from an environment variable at run time (the only form a shared profile may use). */
export const envSecretSchema = z
  .strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name') })
  .describe('A secret read from the named environment variable when the suite starts.');
/** A literal secret: refused unless the profile is marked `local: true`. */
export const literalSecretSchema = z
  .strictObject({ value: z.string().min(1) })
  .describe('A literal secret. Accepted only in a profile marked "local": true (demo data of a local server).');
export const secretSchema = z.union([envSecretSchema, literalSecretSchema]);
export type SecretRef = z.infer<typeof secretSchema>;

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' });

const clientSchema = z.strictObject({
  clientId: z.string().min(1).describe('The client_id (not a secret).'),
  clientSecret: secretSchema.describe('The client_secret.'),
  tokenParameters: tokenParametersSchema.optional(),
  description: z.string().optional(),
});
const userSchema = z.strictObject({
  username: z.string().min(1).describe('tenant_system_name\\user_name, as sent in the password grant.'),
  password: secretSchema.describe("The user's password."),
  passwordAgeDays: z
    .number()
    .min(0)
    .optional()
    .describe(
      'Days since the password was last changed, as at the start of the run (the reference seed: 1). The clock-driven lifecycle model places the 45-day password edge with it (to within one hour); without it, that model predicts no password-grant answer once the clock has moved.',
    ),
  description: z.string().optional(),
});

/** The clients the suite's checks ask for; a check whose client is absent is SKIPPED with that reason. */
export const clientNames = [
  'usClient',
  'usClient2',
  'usPasswordClient',
  'usCcOnlyClient',
  'usUnregisteredClient',
  'usWrongRoleClient',
  'usInactiveClient',
  'euClient',
  'otherEnvironmentClient',
  'rateLimitClient',
  'usLongSecretClient',
] as const;
export const userNames = [
  'user',
  'expiredUser',
  'burnableUser',
  'lockableUser',
  'passwordChangeUser',
  'specialCharsUser',
  'wrongRoleUser',
  'inactiveUser',
] as const;
export type ClientName = (typeof clientNames)[number];
export type UserName = (typeof userNames)[number];

const clientDescriptions: Record<ClientName, string> = {
  usClient: 'US client allowed client_credentials, password and refresh_token; registered with Data Services.',
  usClient2:
    'A second US client allowed password and refresh_token (a refresh token is bound to the client it was issued to). STATE-DEACT-004 deactivates it and activates it again.',
  usPasswordClient: 'US client used for password and refresh_token grants (may equal usClient).',
  usCcOnlyClient:
    'US client allowed client_credentials only (password grant refused: unauthorized_client). The account-state checks (ERR-GW-5002, STATE-DEACT-003) deactivate it and activate it again.',
  usUnregisteredClient:
    'US client_credentials client with a valid secret but not registered with Data Services (OI-7).',
  usWrongRoleClient: 'US client registered with Data Services under a role that lacks the people API (000-1101).',
  usInactiveClient: 'A US client that has been deactivated (invalid_client).',
  euClient: 'EU client allowed client_credentials at the EU endpoint.',
  otherEnvironmentClient:
    'A client registered in the other environment (sandbox vs production): its credentials must not work here.',
  rateLimitClient: 'A client reserved for rate-limit checks, so that burning its quota does not disturb other checks.',
  usLongSecretClient:
    "A US client_credentials client whose secret is longer than 72 characters (AUTH-CLI-011: compared in full, not on bcrypt's first 72 bytes).",
};
const userDescriptions: Record<UserName, string> = {
  user: 'A user whose password is current.',
  expiredUser: 'A user whose password is older than 45 days.',
  burnableUser:
    'A user whose refresh tokens the suite may burn (family revocation), and whom the account-state checks (ERR-GW-5002, STATE-DEACT-001/002) deactivate and activate again.',
  lockableUser:
    'A user the destructive brute-force check may lock out with repeated wrong passwords; no other check uses it.',
  passwordChangeUser: 'A user whose password the suite may change (45-day rule checks).',
  specialCharsUser: 'A user whose password holds + & = % space and a non-ASCII character (form-encoding checks).',
  wrongRoleUser: 'A user whose role lacks the people API (000-1101).',
  inactiveUser: 'A deactivated user (invalid_grant).',
};

const personIds = z.strictObject({
  existing: z.string().min(1).describe('An identifier with a record (200).'),
  // A target may have no identifier without a record, or none it refuses as malformed: the checks
  // that need one SKIP naming the field, and the others run.
  missing: z
    .string()
    .min(1)
    .optional()
    .describe('A well-formed identifier with no record (000-5003); without it, the checks that need one SKIP.'),
  malformed: z
    .string()
    .min(1)
    .optional()
    .describe('An identifier that is not well formed (000-5001); without it, the checks that need one SKIP.'),
});

const routeShape = {
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
  path: z
    .string()
    .regex(
      /^\/v1\/[^?#]*$/,
      'a path under /v1/, without a query string ({identifier} is replaced by resources.people.existing; a sample query goes in `query`)',
    ),
};
const route = (what: string) => z.strictObject(routeShape).describe(what);

/** A JSON value (what a JSON body may hold). */
const jsonValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

/** The JSON type a query parameter's value must have (a value of another type gets 000-2112). */
export const queryParameterTypes = ['integer', 'number', 'boolean'] as const;

const jsonBodyRouteSchema = z
  .strictObject({
    ...routeShape,
    sampleBody: z
      .record(z.string(), jsonValue)
      .refine((o) => Object.keys(o).length > 0, 'must have at least one member')
      .optional()
      .describe(
        'A JSON object the route accepts, with only required members, each of the type the route requires (reference: {"text": "conformance note"}). ERR-GW-2121 leaves its first member out; ERR-GW-2122 gives that member a value of another JSON type. Absent: those checks are SKIPPED.',
      ),
  })
  .describe(
    'A protected route that takes a JSON body (reference: POST /v1/people/er/{identifier}/notes), for the 000-1005/2101/212x checks. Called with the usClient token: that client must be allowed to call it.',
  );

const queryRouteSchema = z
  .strictObject({
    ...routeShape,
    query: z
      .record(z.string().min(1), z.string())
      .refine((o) => Object.keys(o).length > 0, 'must have at least one parameter')
      .optional()
      .describe(
        'A query the route accepts (reference: {"lastName": "Lovelace", "limit": "5"}); sent as name=value pairs in this order.',
      ),
    required: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        'Parameters of `query` the route requires: ERR-GW-2111 leaves the first one out (reference: ["lastName"]).',
      ),
    typed: z
      .record(z.string().min(1), z.enum(queryParameterTypes))
      .optional()
      .describe(
        'Parameters of `query` whose value must be of a type: ERR-GW-2112 gives the first one a value of another type (reference: {"limit": "integer"}).',
      ),
  })
  .superRefine((r, ctx) => {
    const names = Object.keys(r.query ?? {});
    for (const [field, list] of [
      ['required', r.required ?? []],
      ['typed', Object.keys(r.typed ?? {})],
    ] as const) {
      if (list.length > 0 && !r.query)
        ctx.addIssue({ code: 'custom', path: [field], message: 'needs `query` (a sample query the route accepts)' });
      else
        for (const n of list)
          if (!names.includes(n))
            ctx.addIssue({ code: 'custom', path: [field], message: `"${n}" is not a parameter of \`query\`` });
    }
  })
  .describe(
    'A protected route with a required query parameter (reference: GET /v1/people/search), for the 000-211x checks.',
  );

const resourcesSchema = z.strictObject({
  people: personIds.optional().describe('Identifiers for GET /v1/people/er/{identifier} (spec §4 endpoint 5).'),
  jsonBodyRoute: jsonBodyRouteSchema.optional(),
  queryRoute: queryRouteSchema.optional(),
  unimplementedRoute: route(
    'A route the gateway exposes but the backend does not implement (reference: GET /v1/people/er/{identifier}/history), for 000-5004.',
  ).optional(),
});

/** Runs per fast-check property (specs/properties/); small defaults suit a shared staging target. */
export const propertyRunsDefault = { inputs: 20, lifecycle: 5, concurrency: 3 };
const propertyRunsSchema = z
  .strictObject({
    inputs: z
      .number()
      .int()
      .positive()
      .default(propertyRunsDefault.inputs)
      .describe('Generated requests per input property (token endpoints per region, gateway).'),
    lifecycle: z
      .number()
      .int()
      .positive()
      .default(propertyRunsDefault.lifecycle)
      .describe(
        'Command sequences of the lifecycle model with the clock (the clock-free variants run a fifth of them, at least 1).',
      ),
    concurrency: z
      .number()
      .int()
      .positive()
      .default(propertyRunsDefault.concurrency)
      .describe(
        'Runs of the concurrent-refresh property (each burns one refresh token with N parallel uses, N within capabilities.load).',
      ),
  })
  .describe(
    'How many runs each property check may make against this target (generous for a local server, small for staging).',
  );

/**
 * A further sandbox instance of the target with a test clock of its own (and the same clients and
 * users as the profile's credentials): the time-travel checks spread over these, one worker each,
 * beside the other checks (core/run/clock-targets.ts).
 */
export const clockSandboxSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .optional()
      .describe('A short name for the sandbox, shown in messages (default: its position, clockSandboxes[i]).'),
    authUrlUs: httpUrl.optional().describe("The sandbox's {auth_url_us}; required when the profile has authUrlUs."),
    authUrlEu: httpUrl.optional().describe("The sandbox's {auth_url_eu}; required when the profile has authUrlEu."),
    baseUrl: httpUrl.optional().describe("The sandbox's {base_url}; required when the profile has baseUrl."),
    clockControlUrl: httpUrl.describe("The sandbox's clock control (same protocol as capabilities.clockControlUrl)."),
    faultControlUrl: httpUrl
      .optional()
      .describe("The sandbox's fault switch; required when the profile has capabilities.faultControlUrl."),
    caFile: z
      .string()
      .min(1)
      .optional()
      .describe(
        "PEM file of the CA that signs the sandbox's TLS certificate (relative to the profile). Absent: the profile's caFile.",
      ),
  })
  .describe(
    "A further sandbox of the target with a clock of its own, knowing the same clients and users as the profile's credentials.",
  );
export type ClockSandbox = z.output<typeof clockSandboxSchema>;

/** The addresses a clock sandbox must declare when the profile declares them (so a check sees the same target shape on either). */
export const clockSandboxAddresses = ['authUrlUs', 'authUrlEu', 'baseUrl', 'faultControlUrl'] as const;

const capabilitiesSchema = z.strictObject({
  clockControlUrl: httpUrl
    .optional()
    .describe(
      "URL of the target's clock control (capability clock-control; protocol in profiles/README.md). Absent: time-dependent checks are SKIPPED.",
    ),
  faultControlUrl: httpUrl
    .optional()
    .describe(
      "URL of the target's upstream fault switch (capability fault-injection; protocol in profiles/README.md). Absent: checks needing faults are SKIPPED.",
    ),
  restartControlUrl: httpUrl
    .optional()
    .describe(
      'URL of a control that restarts the target on its own store (protocol in profiles/README.md; `run --start-reference` sets it for the servers it starts). STATE-RT-USED-003 then replays used refresh tokens after a restart in the same run; without it, only across runs with a state file.',
    ),
  clockSandboxes: z
    .array(clockSandboxSchema)
    .min(1)
    .optional()
    .describe(
      "Further sandbox instances of the target, each with a clock of its own (and the same clients and users): the time-travel checks (@clock/@serial) then run on one worker per sandbox beside the other checks, instead of one at a time after them on the target's own clock. Ignored with `run --start-reference` (which starts clock servers of its own, --clock-servers).",
    ),
  load: z
    .strictObject({
      allowed: z.boolean().default(false).describe('Whether load-like checks (bursts) may run.'),
      maxRequestsPerSecond: z.number().int().positive().default(10),
      maxRequests: z.number().int().positive().default(200),
    })
    .default({ allowed: false, maxRequestsPerSecond: 10, maxRequests: 200 }),
  destructive: z
    .strictObject({
      allowed: z.boolean().default(false).describe('Whether checks that may lock accounts or burn quota may run.'),
    })
    .default({ allowed: false }),
  rateLimit: z
    .strictObject({
      spikePerSecond: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Calls one client may make within one second. Absent: the spike checks are SKIPPED.'),
      quotaPerWindow: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('Calls one client may make within one window. Absent: the quota checks are SKIPPED.'),
      windowSeconds: z
        .number()
        .int()
        .positive()
        .optional()
        .describe('The length of the quota window, in seconds. Absent: the quota checks are SKIPPED.'),
    })
    .refine((r) => Object.values(r).some((n) => n !== undefined), {
      message: 'declare at least one of spikePerSecond, quotaPerWindow and windowSeconds, or leave rateLimit out',
      // A misspelt number is reported as an unknown key alone.
      when: (payload) => payload.issues.length === 0,
    })
    // The JSON Schema export cannot carry the refinement itself.
    .meta({ minProperties: 1 })
    .optional()
    .describe(
      "The target's rate-limit thresholds, each when known: a check runs on the numbers it needs (the spike checks on spikePerSecond, the quota checks on quotaPerWindow and windowSeconds) and SKIPs naming one that is not declared. Absent: rate-limit checks are SKIPPED.",
    ),
  forwardingProxy: z
    .boolean()
    .default(false)
    .describe(
      'The target sits behind a proxy that sets X-Forwarded-For, Forwarded and X-Real-IP itself (overwriting what the client sent): the checks that rotate these headers (LIMIT-RATE-004, LIMIT-RATE-005) are SKIPPED, since the suite cannot reach the target past that proxy to verify it.',
    ),
  lockout: z
    .enum(['none', 'per-principal', 'per-address'])
    .optional()
    .describe(
      "What the target locks out or throttles after failed logins, when known: 'none'; 'per-principal' (only the client or user a wrong secret or password was sent for: a made-up name locks nothing, a request without a secret counts for nothing, no address is ever throttled); 'per-address' (every request from the address that sent them, e.g. a suspicious-IP throttle). With 'none' or 'per-principal', against a distant target whose time-travel checks run in lanes, the lanes of a principal of their own (the token-endpoint input, the refresh-token lifecycle, the brute-force checks of lockableUser) run beside the conformance checks instead of after them. Absent or 'per-address': after them, as their failures could throttle the checks beside. Only the order of the checks depends on it, never a verdict.",
    ),
  supportsBasic: z
    .boolean()
    .default(false)
    .describe('Whether the token endpoints take HTTP Basic client authentication (capability http-basic; OI-11).'),
  realTimeWaitSeconds: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'Without clock control: how long a time-dependent check may wait in real time (a test tenant with short lifetimes). A check whose wait fits waits and verifies at once; a longer one records an obligation (with a state file). Absent: 0, never wait.',
    ),
  propertyRuns: propertyRunsSchema.default(propertyRunsDefault),
});

const expectationsSchema = z.strictObject({
  ccLifetime: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('expires_in of client_credentials tokens, when it must equal a value.'),
  pwLifetime: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('expires_in of password tokens, when it must equal a value.'),
  clockSkewSeconds: z
    .number()
    .int()
    .min(0)
    .default(60)
    .describe(
      "Tolerance for time comparisons against a real clock, and between a JWT access token's exp − iat and expires_in.",
    ),
});

const stateSchema = z
  .strictObject({
    file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The state file (relative to the profile) that keeps the open obligations between runs; `run --state FILE` overrides it. Absent (and no --state): time-dependent checks of a target without clock control are SKIPPED.',
      ),
    key: envSecretSchema.describe(
      'The environment variable holding the secret the state file is encrypted with (AES-256-GCM, key derived with scrypt; at least 16 characters, e.g. `openssl rand -base64 32`).',
    ),
  })
  .describe(
    'Obligations (issue 15): without clock control, time-dependent checks record what must hold later; every run first settles the due ones. The state holds live tokens, so it is always encrypted.',
  );

/** How long a hook may take before the run gives up on it (and the check is BLOCKED saying so). */
export const hookTimeoutSecondsDefault = 30;

const commandHookSchema = z
  .strictObject({
    command: z
      .array(z.string().min(1))
      .min(1)
      .describe(
        'The program and its first arguments, e.g. ["./scripts/set-account-state.sh", "deactivate"] (a relative path with a slash is taken relative to the profile; a bare name is looked up on PATH). Run without a shell; the principal is appended as two arguments: "user" and the tenant\\user username, or "client" and the client_id. Exit code 0 means done.',
      ),
    timeoutSeconds: z.number().int().positive().max(300).default(hookTimeoutSecondsDefault),
  })
  .describe('A command the run executes (no shell: no interpolation of target data).');
const urlHookSchema = z
  .strictObject({
    url: httpUrl.describe(
      'POSTed the principal as JSON: {"kind":"user","tenant":"…","userName":"…"} or {"kind":"client","clientId":"…"}, with the TLS trust and timeout of every request of the run. A 2xx answer means done.',
    ),
  })
  .describe('A URL the run calls (POST, JSON body naming the principal).');
export const hookSchema = z.union([commandHookSchema, urlHookSchema]);
export type Hook = z.output<typeof hookSchema>;

const hooksSchema = z
  .strictObject({
    deactivate: hookSchema.describe('Deactivates a user or client of the profile (as an administrator would).'),
    activate: hookSchema.describe('Activates it again (undoes deactivate).'),
  })
  .describe(
    "How the run deactivates and reactivates a principal on a target without the reference's test controls (the account-state checks STATE-DEACT-001…004 and ERR-GW-5002; docs/own-target.md). Absent: a check needing them is SKIPPED naming hooks (unless the target has the reference's test controls beside capabilities.faultControlUrl).",
  );

const ajv = createAjv();

/** A value valid against an interpretation's JSON Schema fragment (ajv, the contract's settings). */
function fragmentSchema(o: InterpretationOption) {
  const validate = ajv.compile(o.schema!);
  return z.custom<unknown>((value) => validate(value), {
    error: () => `must match the schema of ${o.id}: ${formatErrors(validate.errors ?? []).join('; ')}`,
  });
}

function interpretationsSchema(options: InterpretationOption[]) {
  const shape: Record<string, z.ZodType> = {};
  for (const o of options) {
    let value: z.ZodType;
    if (o.values && o.values.length > 0) {
      const literals = o.values.map((v) => z.literal(v));
      value =
        literals.length === 1 ? literals[0]! : z.union(literals as [z.ZodLiteral, z.ZodLiteral, ...z.ZodLiteral[]]);
    } else if (o.schema) value = fragmentSchema(o);
    else value = z.unknown();
    shape[o.key] = value
      .optional()
      .describe(`${o.id}${o.title ? `: ${o.title}` : ''} (reference: ${JSON.stringify(o.default)})`);
  }
  return z
    .strictObject(shape)
    .default({})
    .describe(
      "The target's own choice for each open interpretation (requirements/interpretations.json); an absent key takes the reference choice.",
    );
}

/** Builds the profile schema with the interpretation keys of the given catalogue. */
export function buildProfileSchema(options: InterpretationOption[] = loadInterpretations()) {
  return z.strictObject({
    $schema: z.string().optional(),
    name: z.string().min(1).describe('A short name for the target, shown in reports.'),
    description: z.string().optional(),
    local: z
      .boolean()
      .default(false)
      .describe('A local throw-away target: literal secrets and plain HTTP are accepted.'),
    environment: z.enum(['sandbox', 'production']).optional().describe('The environment the credentials belong to.'),
    authUrlUs: httpUrl.optional().describe('{auth_url_us}: the US token server. Absent: US checks are NOT_APPLICABLE.'),
    authUrlEu: httpUrl.optional().describe('{auth_url_eu}: the EU token server. Absent: EU checks are NOT_APPLICABLE.'),
    baseUrl: httpUrl.optional().describe('{base_url}: the protected APIs behind the gateway.'),
    plainHttpUrl: z
      .url({ protocol: /^http$/, error: 'must be an http:// URL' })
      .optional()
      .describe('A plain-HTTP address of the token service, if one answers: checked never to issue tokens.'),
    caFile: z
      .string()
      .min(1)
      .optional()
      .describe("PEM file of the CA that signs the target's TLS certificate (relative to the profile)."),
    credentials: z
      .strictObject({
        clients: z
          .strictObject(
            Object.fromEntries(
              clientNames.map((n) => [n, clientSchema.optional().describe(clientDescriptions[n])]),
            ) as Record<ClientName, z.ZodOptional<typeof clientSchema>>,
          )
          .default({}),
        users: z
          .strictObject(
            Object.fromEntries(
              userNames.map((n) => [n, userSchema.optional().describe(userDescriptions[n])]),
            ) as Record<UserName, z.ZodOptional<typeof userSchema>>,
          )
          .default({}),
        tokens: z
          .strictObject({
            otherEnvironment: secretSchema
              .optional()
              .describe(
                'An access token issued by the other environment (sandbox vs production), to check it is refused here.',
              ),
          })
          .default({}),
      })
      .default({ clients: {}, users: {}, tokens: {} }),
    resources: resourcesSchema.default({}),
    capabilities: capabilitiesSchema.default({
      load: { allowed: false, maxRequestsPerSecond: 10, maxRequests: 200 },
      destructive: { allowed: false },
      forwardingProxy: false,
      supportsBasic: false,
      propertyRuns: propertyRunsDefault,
    }),
    expectations: expectationsSchema.default({ clockSkewSeconds: 60 }),
    interpretations: interpretationsSchema(options),
    state: stateSchema.optional(),
    hooks: hooksSchema.optional(),
  });
}

export type ProfileSchema = ReturnType<typeof buildProfileSchema>;
export type TargetProfile = z.output<ProfileSchema>;

/** The rate-limit thresholds a profile declares (capabilities.rateLimit), each number on its own. */
export type RateLimit = NonNullable<TargetProfile['capabilities']['rateLimit']>;
