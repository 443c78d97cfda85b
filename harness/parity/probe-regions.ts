// Sends the region-parity requests (region-parity.ts) to both token endpoints, with each region's
// own client, and compares the reduced answers. Needs authUrlUs, authUrlEu, usClient and euClient;
// otherwise the section says why nothing was compared. Each bad request is sent once per region:
// one wrong-secret attempt per client per run is far below any lockout threshold.
import { loadInterpretations } from '../../core/catalogue/catalogue.ts';
import type { LoadedProfile } from '../../core/profile/load-profile.ts';
import type { ClientName } from '../../core/profile/profile.schema.ts';
import { tokenPoster, tokenUrl, type TokenPoster } from '../preflight/token-post.ts';
import {
  compareRegions,
  notCompared,
  reduceAnswer,
  type DeclaredChoices,
  type ProbeAnswer,
  type RegionObservation,
} from './region-parity.ts';
import type { RegionParity } from './region-parity.schema.ts';
import { shapedProbeForm } from '../../core/profile/token-parameters.ts';

/** A scope value no target defines (the spec's scopes: §2.2). */
export const unknownScopeValue = 'token-conformance-unknown-scope';
export const unsupportedGrantValue = 'urn:example:token-conformance:unsupported';
/** The wrong secret: a fixed value, never derived from the real one (a target may log refused secrets). */
export const wrongSecretValue = 'token-conformance-wrong-secret';

/** The target's declared choice for an open interpretation, else the catalogue's reference choice. */
export function declaredChoices(interpretations: Record<string, unknown>): DeclaredChoices {
  const catalogue = loadInterpretations();
  const choice = (key: string) => String(interpretations[key] ?? catalogue.find((o) => o.key === key)?.default);
  return { usClientCredentialsScope: choice('usClientCredentialsScope'), euOtherGrants: choice('euOtherGrants') };
}

export async function probeRegions(
  loaded: Pick<LoadedProfile, 'profile' | 'secrets'>,
  poster: TokenPoster = tokenPoster(loaded.profile),
): Promise<RegionParity> {
  const { profile } = loaded;
  const missing = [
    !profile.authUrlUs && 'authUrlUs',
    !profile.authUrlEu && 'authUrlEu',
    !profile.credentials.clients.usClient && 'credentials.clients.usClient',
    !profile.credentials.clients.euClient && 'credentials.clients.euClient',
  ].filter((m): m is string => typeof m === 'string');
  if (missing.length > 0) {
    await poster.close();
    return notCompared(`needs both regions' client_credentials: ${missing.join(', ')} not configured`);
  }
  const secret = (client: ClientName) =>
    loaded.secrets.find((s) => s.path === `credentials.clients.${client}.clientSecret`)?.value ?? '';
  const user = profile.credentials.users.user;
  const userPassword = loaded.secrets.find((s) => s.path === 'credentials.users.user.password')?.value;
  // The password grant goes with the region's password client: at the US endpoint usPasswordClient
  // (else usClient); the EU endpoint has none in the spec (§4 notes), so the EU client asks.
  const passwordClient = (region: 'us' | 'eu', client: ClientName): ClientName =>
    region === 'us' && profile.credentials.clients.usPasswordClient ? 'usPasswordClient' : client;
  const observe = async (region: 'us' | 'eu', client: ClientName): Promise<RegionObservation> => {
    const url = tokenUrl(region === 'us' ? profile.authUrlUs! : profile.authUrlEu!, region);
    const id = profile.credentials.clients[client]!.clientId;
    const ask = async (form: Record<string, string>): Promise<ProbeAnswer> => {
      // With the profile's declared tokenParameters (a probe's own scope kept), as every token request of the run.
      const raw = await poster.post(url, shapedProbeForm(profile.credentials.clients, form));
      return reduceAnswer(raw.status, raw.body);
    };
    // One after the other: the wrong-secret request is followed by successful ones, and a target
    // that counts consecutive failures per client sees one at a time.
    const success = await ask({ grant_type: 'client_credentials', client_id: id, client_secret: secret(client) });
    const missingGrantType = await ask({ client_id: id, client_secret: secret(client) });
    const badClientSecret = await ask({
      grant_type: 'client_credentials',
      client_id: id,
      client_secret: wrongSecretValue,
    });
    const unsupportedGrant = await ask({
      grant_type: unsupportedGrantValue,
      client_id: id,
      client_secret: secret(client),
    });
    const unknownScope = await ask({
      grant_type: 'client_credentials',
      client_id: id,
      client_secret: secret(client),
      scope: unknownScopeValue,
    });
    const pw = passwordClient(region, client);
    const passwordGrant =
      user && userPassword !== undefined
        ? await ask({
            grant_type: 'password',
            client_id: profile.credentials.clients[pw]!.clientId,
            client_secret: secret(pw),
            username: user.username,
            password: userPassword,
          })
        : undefined;
    return {
      success,
      missingGrantType,
      badClientSecret,
      unsupportedGrant,
      unknownScope,
      ...(passwordGrant ? { passwordGrant } : {}),
    };
  };
  try {
    const [us, eu] = await Promise.all([observe('us', 'usClient'), observe('eu', 'euClient')]);
    const clients = profile.credentials.clients;
    const shapedScopeOf = (client: ClientName) =>
      shapedProbeForm(clients, { grant_type: 'client_credentials', client_id: clients[client]!.clientId }).scope;
    const usShaped = shapedScopeOf('usClient');
    const euShaped = shapedScopeOf('euClient');
    const shapedScope = {
      ...(usShaped !== undefined ? { us: usShaped } : {}),
      ...(euShaped !== undefined ? { eu: euShaped } : {}),
    };
    return compareRegions(
      us,
      eu,
      { ...declaredChoices(profile.interpretations), shapedScope },
      {
        us: tokenUrl(profile.authUrlUs!, 'us'),
        eu: tokenUrl(profile.authUrlEu!, 'eu'),
      },
    );
  } catch (error) {
    return notCompared(`a parity request got no answer: ${(error as Error).message}`);
  } finally {
    await poster.close();
  }
}
