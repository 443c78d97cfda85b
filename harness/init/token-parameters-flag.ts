// `init --token-parameter CLIENT.NAME=VALUE` (every grant of the client) or
// `CLIENT.GRANT.NAME=VALUE` (one grant): the extra form parameters a deployment demands on a
// client's token requests, written as that client's tokenParameters (core/profile/token-parameters.ts).
import { clientNames } from '../../core/profile/profile.schema.ts';
import { isShapedGrant, reservedTokenParameters, type ShapedGrant } from '../../core/profile/token-parameters.ts';

/** One client's declared parameters: for every grant, or per grant (never both, as the profile schema says). */
export type ClientTokenParameters =
  | { kind: 'every-grant'; parameters: Record<string, string> }
  | { kind: 'per-grant'; grants: Partial<Record<ShapedGrant, Record<string, string>>> };

/** The parameters a request of `grant` carries under a declaration. */
export function parametersFor(declared: ClientTokenParameters | undefined, grant: ShapedGrant): Record<string, string> {
  if (!declared) return {};
  return declared.kind === 'every-grant' ? declared.parameters : (declared.grants[grant] ?? {});
}

/** The profile's JSON value of a declaration. */
export function tokenParametersJson(declared: ClientTokenParameters): Record<string, unknown> {
  return declared.kind === 'every-grant' ? declared.parameters : declared.grants;
}

/** The flags' declarations by client name; throws with the flag's own words on a bad one. */
export function parseTokenParameterFlags(values: readonly string[] | undefined): Map<string, ClientTokenParameters> {
  const out = new Map<string, ClientTokenParameters>();
  for (const flag of values ?? []) {
    const at = flag.indexOf('=');
    const path = (at < 0 ? flag : flag.slice(0, at)).split('.');
    const value = at < 0 ? undefined : flag.slice(at + 1);
    const [client, ...rest] = path;
    const bad = (why: string) =>
      new Error(`--token-parameter ${flag}: ${why} (CLIENT.NAME=VALUE, or CLIENT.GRANT.NAME=VALUE for one grant)`);
    if (value === undefined || value === '') throw bad('give a value after =');
    if (!client || !(clientNames as readonly string[]).includes(client))
      throw bad(`'${client ?? ''}' is not one of ${clientNames.join(', ')}`);
    const grant = rest.length === 2 ? rest[0] : undefined;
    const name = rest[rest.length - 1];
    if (rest.length < 1 || rest.length > 2 || !name) throw bad('name the parameter');
    if (grant !== undefined && !isShapedGrant(grant))
      throw bad(`'${grant}' is not a grant the suite sends (client_credentials, password, refresh_token)`);
    if ((reservedTokenParameters as readonly string[]).includes(name))
      throw bad(`"${name}" is set by the suite itself on every request`);
    const current = out.get(client);
    if (grant === undefined) {
      if (current?.kind === 'per-grant')
        throw bad(`${client} already has per-grant parameters: give every one per grant`);
      out.set(client, { kind: 'every-grant', parameters: { ...current?.parameters, [name]: value } });
    } else {
      if (current?.kind === 'every-grant')
        throw bad(`${client} already has parameters for every grant: give every one per grant`);
      const grants = { ...current?.grants };
      grants[grant] = { ...grants[grant], [name]: value };
      out.set(client, { kind: 'per-grant', grants });
    }
  }
  return out;
}
