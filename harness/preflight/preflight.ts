// Self-diagnosis before judging: a few token requests that tell a setup problem (the profile does
// not fit the target) from non-conformance, so that a wrong secret gives one line and exit 2
// instead of a wall of FAILs. Conservative on purpose — a genuinely non-conformant target must
// still be judged, so each rule needs EVERY probe to point the same way:
//   - every configured client refused with invalid_client → the secrets (or the environment) are wrong;
//   - every probe answered 429 → the quota is spent (or the suite shares a client with a busy caller);
//   - the EU address answers like the US one: it refuses the EU client with invalid_client AND
//     issues the US client a token without the EU scope "empty_default" → authUrlEu is a US server.
// One client refused (invalid_client) or locked out (429) among others that work is a note naming
// it; `run` records it as a client lock (core/run/client-locks.ts), so its checks are
// BLOCKED with that answer instead of sending it more requests.
// The same address for authUrlUs and authUrlEu is not a signal on its own: the spec tells the
// regions apart by path (§4), and the reference server serves both on one origin.
import type { ClientName, TargetProfile } from '../../core/profile/profile.schema.ts';
import { reduceAnswer, type ProbeAnswer } from '../parity/region-parity.ts';
import type { LoadedProfile } from '../../core/profile/load-profile.ts';
import { tokenPoster, tokenUrl, type TokenPoster } from './token-post.ts';
import { shapedProbeForm } from '../../core/profile/token-parameters.ts';

/**
 * The clients the suite uses for the password grant: a client_credentials probe may be a grant they
 * are not registered for, and a target that answers that with invalid_client (RFC 6749 §5.2 says
 * unauthorized_client: GRANT-PW-009 judges it) has not refused their credentials.
 */
const passwordClients: readonly ClientName[] = ['usClient2', 'usPasswordClient'];

/** Clients whose credentials must authenticate. Left out: the inactive and other-environment clients (refused by design) and the rate-limit client (its quota is counted by checks). */
export const preflightClients: readonly ClientName[] = ['usClient', 'usClient2', 'usPasswordClient', 'usCcOnlyClient', 'usUnregisteredClient', 'usWrongRoleClient', 'euClient'];

export interface ClientProbe {
  client: ClientName;
  /** The profile field to fix, e.g. credentials.clients.usClient.clientSecret ($STAGING_US_CC_SECRET). */
  field: string;
  region: 'us' | 'eu';
  answer?: ProbeAnswer & { retryAfter?: string };
}

export interface PreflightObservations {
  clients: ClientProbe[];
  /** The US client's client_credentials request at the EU endpoint (with euClient and usClient configured). */
  usClientAtEu?: ProbeAnswer;
  authUrlEu?: string;
  environment?: string;
}

export interface PreflightResult {
  /** One line: what is wrong and the profile field to fix. Undefined: judge the target. */
  problem?: string;
  notes: string[];
  /** Clients the target refuses already (429, invalid_client), while others work: not to be used in the run. */
  refusedClients?: (ClientProbe & { answer: ProbeAnswer & { retryAfter?: string } })[];
}

const refused = (a?: ProbeAnswer) => a !== undefined && (a.status === 400 || a.status === 401) && a.error === 'invalid_client';
const list = (items: string[], shown = 3) => (items.length <= shown ? items.join(', ') : `${items.slice(0, shown).join(', ')} and ${items.length - shown} more`);

export function classifyPreflight(o: PreflightObservations): PreflightResult {
  const answered = o.clients.filter((c) => c.answer !== undefined);
  if (answered.length === 0) return { notes: [] };
  const notes: string[] = [];
  if (answered.every((c) => c.answer!.status === 429)) {
    const retry = answered.map((c) => c.answer!.retryAfter).find((r) => r !== undefined);
    return {
      problem: `every preflight call was rate-limited (429 on ${answered.length} of ${answered.length} token requests${retry ? `, Retry-After ${retry} s` : ''}): the target's quota for these clients is spent — wait and run again, or give the suite clients of its own (credentials.clients)`,
      notes,
    };
  }
  const rejected = answered.filter((c) => refused(c.answer));
  if (rejected.length === answered.length) {
    return {
      problem: `every configured client was refused with invalid_client (${list(rejected.map((c) => c.field))}): these secrets do not belong to this target${o.environment ? ` (the profile says environment "${o.environment}")` : ''} — fix credentials.clients.*.clientSecret or the client ids`,
      notes,
    };
  }
  const eu = answered.find((c) => c.client === 'euClient');
  const us = o.usClientAtEu;
  if (eu && refused(eu.answer) && us && us.status === 200 && us.tokenFormat !== undefined && us.scope !== 'empty_default') {
    return {
      problem: `authUrlEu (${o.authUrlEu ?? 'the EU address'}) answers like the US token server: it refuses the EU client (${eu.field}) with invalid_client and gives the US client a token ${us.scope === undefined ? 'without a scope' : `with scope "${us.scope}"`}, not the EU scope "empty_default" — set authUrlEu to the EU token server`,
      notes,
    };
  }
  const lockedOut = answered.filter((c) => c.answer!.status === 429);
  for (const c of lockedOut) notes.push(`${c.client} is locked out already (429${c.answer!.retryAfter !== undefined ? `, Retry-After ${c.answer!.retryAfter} s` : ''} in the preflight): it is not used in this run and the checks that need it are BLOCKED (the other clients work)`);
  const locked = rejected.filter((c) => !passwordClients.includes(c.client));
  for (const c of locked) notes.push(`${c.field} was refused with invalid_client in the preflight: ${c.client} is not used in this run and the checks that need it are BLOCKED (the other clients authenticate)`);
  for (const c of rejected.filter((r) => passwordClients.includes(r.client))) {
    notes.push(`${c.field} was refused with invalid_client on the preflight's client_credentials request, a grant this password client may not be registered for: ${c.client} is still used, and its password checks judge its credentials`);
  }
  const refusedClients = [...lockedOut, ...locked] as NonNullable<PreflightResult['refusedClients']>;
  return { notes, ...(refusedClients.length > 0 ? { refusedClients } : {}) };
}

function fieldOf(profile: TargetProfile, client: ClientName): string {
  const ref = profile.credentials.clients[client]?.clientSecret;
  return `credentials.clients.${client}.clientSecret${ref && 'env' in ref ? ` ($${ref.env})` : ''}`;
}

/**
 * Sends the probes (one client_credentials request per configured client, at its region's
 * endpoint, plus the US client at the EU endpoint) and classifies the answers. A probe that gets
 * no HTTP answer is left out: reachability was checked before.
 */
export async function runPreflight(loaded: Pick<LoadedProfile, 'profile' | 'secrets'>, poster: TokenPoster = tokenPoster(loaded.profile)): Promise<PreflightResult> {
  const { profile } = loaded;
  const secret = (client: ClientName) => loaded.secrets.find((s) => s.path === `credentials.clients.${client}.clientSecret`)?.value;
  const post = async (base: string, region: 'us' | 'eu', client: ClientName) => {
    const c = profile.credentials.clients[client];
    const s = secret(client);
    if (!c || s === undefined) return undefined;
    try {
      // With the profile's declared tokenParameters, as every token request of the run.
      const form = shapedProbeForm(profile.credentials.clients, { grant_type: 'client_credentials', client_id: c.clientId, client_secret: s });
      const raw = await poster.post(tokenUrl(base, region), form);
      return { ...reduceAnswer(raw.status, raw.body), ...(raw.retryAfter !== undefined ? { retryAfter: raw.retryAfter } : {}) };
    } catch {
      return undefined;
    }
  };
  try {
    const probes = preflightClients.flatMap((client): Promise<ClientProbe>[] => {
      const region = client === 'euClient' ? 'eu' : 'us';
      const base = region === 'us' ? profile.authUrlUs : profile.authUrlEu;
      if (!base || !profile.credentials.clients[client]) return [];
      return [post(base, region, client).then((answer) => ({ client, field: fieldOf(profile, client), region, ...(answer ? { answer } : {}) }))];
    });
    const crossRegion = profile.authUrlEu && profile.credentials.clients.euClient && profile.credentials.clients.usClient
      ? post(profile.authUrlEu, 'eu', 'usClient') : Promise.resolve(undefined);
    const [clients, usClientAtEu] = await Promise.all([Promise.all(probes), crossRegion]);
    return classifyPreflight({
      clients,
      ...(usClientAtEu ? { usClientAtEu } : {}),
      ...(profile.authUrlEu ? { authUrlEu: profile.authUrlEu } : {}),
      ...(profile.environment ? { environment: profile.environment } : {}),
    });
  } finally {
    await poster.close();
  }
}
