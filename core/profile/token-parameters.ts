// Declared request shaping: the extra form parameters a deployment demands on its token requests
// (credentials.clients.<name>.tokenParameters), e.g. Okta's required `scope` on client_credentials,
// Entra ID's `scope=<resource>/.default`, Auth0's `audience`. Two forms: parameters for every grant
// of the client (`{ "scope": "…" }`), or per grant (`{ "client_credentials": { "scope": "…" } }`).
// A value is a string or an environment reference (`{ "env": "NAME" }`, read when the suite starts).
import { z } from 'zod';

/** The grants the suite sends, spelled as on the wire. */
export const shapedGrants = ['client_credentials', 'password', 'refresh_token'] as const;
export type ShapedGrant = (typeof shapedGrants)[number];

export function isShapedGrant(value: string | undefined): value is ShapedGrant {
  return (shapedGrants as readonly (string | undefined)[]).includes(value);
}

/**
 * Parameters the suite itself sets on a token request: a declaration may not replace them (the
 * checks could no longer say what they sent).
 */
export const reservedTokenParameters = [
  'grant_type',
  'client_id',
  'client_secret',
  'username',
  'password',
  'refresh_token',
] as const;

const envReference = z.strictObject({
  env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'),
});
export const tokenParameterValueSchema = z
  .union([z.string(), envReference])
  .describe(
    'A parameter value: a string, or {"env": "NAME"} read from that environment variable when the suite starts.',
  );
export type TokenParameterValue = z.infer<typeof tokenParameterValueSchema>;
const parameterMap = z.record(z.string().min(1), tokenParameterValueSchema);

export const tokenParametersSchema = z
  .record(z.string().min(1), z.union([tokenParameterValueSchema, parameterMap]))
  .superRefine((declared, ctx) => {
    const keys = Object.keys(declared);
    const perGrant = keys.some((k) => isShapedGrant(k) || isParameterMap(declared[k]));
    const checkNames = (map: Record<string, unknown>, at: (string | number)[]) => {
      for (const name of Object.keys(map)) {
        if ((reservedTokenParameters as readonly string[]).includes(name)) {
          ctx.addIssue({
            code: 'custom',
            path: [...at, name],
            message: `"${name}" is set by the suite itself on every request; tokenParameters declares only the extra parameters a deployment demands (scope, audience, resource, …)`,
          });
        }
      }
    };
    if (!perGrant) return checkNames(declared, []);
    for (const key of keys) {
      if (!isShapedGrant(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `"${key}" is not a grant the suite sends (${shapedGrants.join(', ')}): write parameters either per grant, or all at the top level for every grant, not both`,
        });
        continue;
      }
      const map = declared[key];
      if (!isParameterMap(map)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'expected an object of form parameters for this grant, e.g. {"scope": "…"}',
        });
        continue;
      }
      checkNames(map, [key]);
    }
  })
  .describe(
    'Extra form parameters every token request for this client carries (a deployment rule the spec does not show, e.g. a required scope or audience): either {"scope": "…"} for every grant, or per grant {"client_credentials": {…}, "password": {…}, "refresh_token": {…}}. The checks whose requirement is the spec\'s own request (GRANT-CC-001/002, GRANT-PW-001, GRANT-RT-001) still send it without them and FAIL naming this declaration; a check that sets a parameter itself keeps its own value.',
  );
export type TokenParameters = z.infer<typeof tokenParametersSchema>;

function isParameterMap(value: unknown): value is Record<string, TokenParameterValue> {
  return typeof value === 'object' && value !== null && !('env' in value && Object.keys(value).length === 1);
}

/** The declared parameters of one grant, in declaration order (a per-grant declaration without that grant: none). */
export function declaredForGrant(
  declared: TokenParameters | undefined,
  grant: ShapedGrant,
): [string, TokenParameterValue][] {
  if (!declared) return [];
  const perGrant = Object.entries(declared).some(([k, v]) => isShapedGrant(k) || isParameterMap(v));
  if (!perGrant) return Object.entries(declared) as [string, TokenParameterValue][];
  const map = declared[grant];
  return isParameterMap(map) ? Object.entries(map) : [];
}

/**
 * Where a declared parameter of one grant sits under the client (`tokenParameters.scope`, or
 * `tokenParameters.password.scope` in a per-grant declaration): the field a report names.
 */
export function declaredParameterPath(
  declared: TokenParameters | undefined,
  grant: ShapedGrant,
  name: string,
): string | undefined {
  if (!declaredForGrant(declared, grant).some(([k]) => k === name)) return undefined;
  const perGrant = Object.entries(declared ?? {}).some(([k, v]) => isShapedGrant(k) || isParameterMap(v));
  return perGrant ? `tokenParameters.${grant}.${name}` : `tokenParameters.${name}`;
}

/** A declared value as sent: a string as itself, an environment reference read from `env` (undefined when unset). */
export function declaredValue(value: TokenParameterValue, env: NodeJS.ProcessEnv): string | undefined {
  return typeof value === 'string' ? value : env[value.env];
}

/**
 * The one rule of shaping a token request: `fields` with the declared parameters appended, except
 * those the request already carries or leaves out on purpose (the check's own choice wins).
 */
export function withDeclaredParameters(
  fields: [string, string][],
  declared: [string, string][],
  leaveOut: readonly string[] = [],
): [string, string][] {
  const present = new Set([...fields.map(([k]) => k), ...leaveOut]);
  return [...fields, ...declared.filter(([k]) => !present.has(k))];
}

/**
 * A probe the CLI sends itself (preflight, region parity) shaped like the checks' requests: the
 * declared parameters of the profile client its client_id names, for its grant_type.
 */
export function shapedProbeForm(
  clients: Record<string, { clientId: string; tokenParameters?: TokenParameters | undefined } | undefined>,
  form: Record<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const grant = form.grant_type;
  const client = Object.values(clients).find((c) => c !== undefined && c.clientId === form.client_id);
  if (!client || !isShapedGrant(grant)) return form;
  const declared = declaredForGrant(client.tokenParameters, grant).flatMap(([k, v]): [string, string][] => {
    const value = declaredValue(v, env);
    return value === undefined ? [] : [[k, value]];
  });
  return Object.fromEntries(withDeclaredParameters(Object.entries(form), declared));
}

/** A value as a report shows it: a string as itself, an environment reference as $NAME (its value is read by the workers). */
export function shownValue(value: TokenParameterValue): string {
  return typeof value === 'string' ? value : `$${value.env}`;
}

/** One declaration per client and grant, as reports list them. */
export interface DeclaredShaping {
  client: string;
  grant: ShapedGrant;
  parameters: Record<string, string>;
}

export function declaredShapings(
  clients: Record<string, { tokenParameters?: TokenParameters | undefined } | undefined>,
): DeclaredShaping[] {
  const out: DeclaredShaping[] = [];
  for (const [client, c] of Object.entries(clients)) {
    for (const grant of shapedGrants) {
      const parameters = declaredForGrant(c?.tokenParameters, grant);
      if (parameters.length > 0)
        out.push({ client, grant, parameters: Object.fromEntries(parameters.map(([k, v]) => [k, shownValue(v)])) });
    }
  }
  return out;
}

/** "usClient client_credentials: scope=people.read" */
export function describeShaping(s: DeclaredShaping): string {
  return `${s.client} ${s.grant}: ${Object.entries(s.parameters)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`;
}
