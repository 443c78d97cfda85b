// Self-diagnosis before judging: a few token requests that tell a setup problem (the profile does
// not fit the target) from non-conformance, so that a wrong secret gives one line and exit 2
// instead of a wall of FAILs. Conservative on purpose — a genuinely non-conformant target must
// still be judged, so each rule needs EVERY probe to point the same way:
//   - every configured client refused with invalid_client → the secrets (or the environment) are wrong;
//   - every probe answered 429 → the quota is spent (or the suite shares a client with a busy caller);
//   - the EU address answers like the US one: it refuses the EU client with invalid_client AND
//     issues the US client a token without the EU scope "empty_default" → authUrlEu is a US server.
// One client refused (invalid_client) among others that work, or one user whose password grant is
// refused (invalid_grant) while its client works, is a profile error: named with the answer seen
// (`--check-profile` exits 2 on it); `run` records it as a profile lock (core/run/client-locks.ts),
// so the checks needing that credential are BLOCKED by the profile, never a FAIL of the target. A
// client locked out already (429) is a note and a lock of its own.
// Each configured credential is tried once: one request per client, one per user — within any load
// budget a profile declares.
// The same address for authUrlUs and authUrlEu is not a signal on its own: the spec tells the
// regions apart by path (§4), and the reference server serves both on one origin.
import type { ClientName, TargetProfile, UserName } from '../../core/profile/profile.schema.ts';
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
export const preflightClients: readonly ClientName[] = [
  'usClient',
  'usClient2',
  'usPasswordClient',
  'usCcOnlyClient',
  'usUnregisteredClient',
  'usWrongRoleClient',
  'euClient',
];

export interface ClientProbe {
  client: ClientName;
  /** The profile field to fix, e.g. credentials.clients.usClient.clientSecret ($STAGING_US_CC_SECRET). */
  field: string;
  region: 'us' | 'eu';
  answer?: ProbeAnswer & { retryAfter?: string; intermediary?: string };
}

/** Users whose password grant must succeed. Left out: the expired and inactive users (refused by design). */
export const preflightUsers: readonly UserName[] = [
  'user',
  'burnableUser',
  'lockableUser',
  'passwordChangeUser',
  'specialCharsUser',
  'wrongRoleUser',
];

export interface UserProbe {
  user: UserName;
  /** The profile field to fix, e.g. credentials.users.user.password ($STAGING_USER_PASSWORD). */
  field: string;
  /** The client the password grant was sent with. */
  client: ClientName;
  /** That client's secret field (named when the password grant refuses the client). */
  clientField?: string;
  answer?: ProbeAnswer;
}

/** A credential of the profile the target refused: a profile error, not a finding about the target. */
export interface ProfileError {
  kind: 'client' | 'user';
  name: string;
  field: string;
  region: 'us' | 'eu';
  /** The client (the user's password grant was sent with it). */
  client: ClientName;
  /** What the target answered, in a few words (HTTP 401 invalid_client). */
  answer: string;
}

export interface PreflightObservations {
  clients: ClientProbe[];
  users?: UserProbe[];
  /** The US client's client_credentials request at the EU endpoint (with euClient and usClient configured). */
  usClientAtEu?: ProbeAnswer;
  authUrlEu?: string;
  environment?: string;
}

export interface PreflightResult {
  /** One line: what is wrong and the profile field to fix. Undefined: judge the target. */
  problem?: string;
  notes: string[];
  /** Clients the target has locked out already (429), while others work: not to be used in the run. */
  refusedClients?: (ClientProbe & { answer: ProbeAnswer & { retryAfter?: string } })[];
  /** Credentials the target refused while others work: profile errors, their checks BLOCKED by the profile. */
  profileErrors?: ProfileError[];
}

const answerText = (a: ProbeAnswer) => `HTTP ${a.status}${a.error ? ` ${a.error}` : ''}`;

/** One line per profile error: the field, the answer, what to do. */
export function profileErrorLine(e: ProfileError): string {
  return `profile error: ${e.field} was refused by the target (${e.answer}) — ${e.kind === 'client' ? 'fix the client id or secret' : `fix the username or password (sent with ${e.client})`}`;
}

const refused = (a?: ProbeAnswer) =>
  a !== undefined && (a.status === 400 || a.status === 401) && a.error === 'invalid_client';
const list = (items: string[], shown = 3) =>
  items.length <= shown ? items.join(', ') : `${items.slice(0, shown).join(', ')} and ${items.length - shown} more`;

export function classifyPreflight(o: PreflightObservations): PreflightResult {
  const answered = o.clients.filter((c) => c.answer !== undefined);
  if (answered.length === 0) return { notes: [] };
  const notes: string[] = [];
  const intercepted = answered.find((c) => c.answer!.intermediary !== undefined);
  if (intercepted && answered.every((c) => c.answer!.intermediary !== undefined))
    return {
      problem: `every preflight call was answered by an intermediary, not the target (${intercepted.answer!.intermediary}): the suite's requests do not reach the target — let the suite's address through the CDN/WAF, or point the profile at an address behind none`,
      notes,
    };
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
  if (
    eu &&
    refused(eu.answer) &&
    us &&
    us.status === 200 &&
    us.tokenFormat !== undefined &&
    us.scope !== 'empty_default'
  ) {
    return {
      problem: `authUrlEu (${o.authUrlEu ?? 'the EU address'}) answers like the US token server: it refuses the EU client (${eu.field}) with invalid_client and gives the US client a token ${us.scope === undefined ? 'without a scope' : `with scope "${us.scope}"`}, not the EU scope "empty_default" — set authUrlEu to the EU token server`,
      notes,
    };
  }
  const lockedOut = answered.filter((c) => c.answer!.status === 429);
  for (const c of lockedOut)
    notes.push(
      `${c.client} is locked out already (429${c.answer!.retryAfter !== undefined ? `, Retry-After ${c.answer!.retryAfter} s` : ''} in the preflight): it is not used in this run and the checks that need it are BLOCKED (the other clients work)`,
    );
  // A password client refused on the client_credentials probe may only lack that grant: its
  // credentials are judged by the users' password grants below (and by its own password checks).
  const profileErrors: ProfileError[] = rejected
    .filter((c) => !passwordClients.includes(c.client))
    .map((c) => ({
      kind: 'client',
      name: c.client,
      field: c.field,
      region: c.region,
      client: c.client,
      answer: answerText(c.answer!),
    }));
  for (const c of rejected.filter((r) => passwordClients.includes(r.client))) {
    notes.push(
      `${c.field} was refused with invalid_client on the preflight's client_credentials request, a grant this password client may not be registered for: ${c.client} is still used, and its password checks judge its credentials`,
    );
  }
  // A user's password grant: invalid_client names the password client's credentials; invalid_grant the user's.
  for (const u of o.users ?? []) {
    if (u.answer === undefined || u.answer.status === 429) continue;
    if (refused(u.answer)) {
      if (!profileErrors.some((e) => e.kind === 'client' && e.name === u.client))
        profileErrors.push({
          kind: 'client',
          name: u.client,
          field: u.clientField ?? `credentials.clients.${u.client}.clientSecret`,
          region: 'us',
          client: u.client,
          answer: answerText(u.answer),
        });
    } else if (
      u.answer.status === 400 &&
      u.answer.error === 'invalid_grant' &&
      !profileErrors.some((e) => e.kind === 'user' && e.name === u.user)
    ) {
      profileErrors.push({
        kind: 'user',
        name: u.user,
        field: u.field,
        region: 'us',
        client: u.client,
        answer: answerText(u.answer),
      });
    }
  }
  const refusedClients = lockedOut as NonNullable<PreflightResult['refusedClients']>;
  return {
    notes,
    ...(refusedClients.length > 0 ? { refusedClients } : {}),
    ...(profileErrors.length > 0 ? { profileErrors } : {}),
  };
}

function fieldOf(profile: TargetProfile, client: ClientName): string {
  const ref = profile.credentials.clients[client]?.clientSecret;
  return `credentials.clients.${client}.clientSecret${ref && 'env' in ref ? ` ($${ref.env})` : ''}`;
}

function userFieldOf(profile: TargetProfile, user: UserName): string {
  const ref = profile.credentials.users[user]?.password;
  return `credentials.users.${user}.password${ref && 'env' in ref ? ` ($${ref.env})` : ''}`;
}

/**
 * Sends the probes (one client_credentials request per configured client, at its region's
 * endpoint, plus the US client at the EU endpoint) and classifies the answers. A probe that gets
 * no HTTP answer is left out: reachability was checked before.
 */
export async function runPreflight(
  loaded: Pick<LoadedProfile, 'profile' | 'secrets'>,
  poster: TokenPoster = tokenPoster(loaded.profile),
): Promise<PreflightResult> {
  const { profile } = loaded;
  const secret = (path: string) => loaded.secrets.find((s) => s.path === path)?.value;
  const post = async (base: string, region: 'us' | 'eu', client: ClientName, user?: UserName) => {
    const c = profile.credentials.clients[client];
    const s = secret(`credentials.clients.${client}.clientSecret`);
    const u = user !== undefined ? profile.credentials.users[user] : undefined;
    const password = user !== undefined ? secret(`credentials.users.${user}.password`) : undefined;
    if (!c || s === undefined || (user !== undefined && (!u || password === undefined))) return undefined;
    const grant: Record<string, string> =
      u && password !== undefined
        ? { grant_type: 'password', username: u.username, password }
        : { grant_type: 'client_credentials' };
    try {
      // With the profile's declared tokenParameters, as every token request of the run.
      const raw = await poster.post(
        tokenUrl(base, region),
        shapedProbeForm(profile.credentials.clients, { ...grant, client_id: c.clientId, client_secret: s }),
      );
      return {
        ...reduceAnswer(raw.status, raw.body),
        ...(raw.retryAfter !== undefined ? { retryAfter: raw.retryAfter } : {}),
        ...(raw.intermediary !== undefined ? { intermediary: raw.intermediary } : {}),
      };
    } catch {
      return undefined;
    }
  };
  try {
    const probes = preflightClients.flatMap((client): Promise<ClientProbe>[] => {
      const region = client === 'euClient' ? 'eu' : 'us';
      const base = region === 'us' ? profile.authUrlUs : profile.authUrlEu;
      if (!base || !profile.credentials.clients[client]) return [];
      return [
        post(base, region, client).then((answer) => ({
          client,
          field: fieldOf(profile, client),
          region,
          ...(answer ? { answer } : {}),
        })),
      ];
    });
    const crossRegion =
      profile.authUrlEu && profile.credentials.clients.euClient && profile.credentials.clients.usClient
        ? post(profile.authUrlEu, 'eu', 'usClient')
        : Promise.resolve(undefined);
    const [clients, usClientAtEu] = await Promise.all([Promise.all(probes), crossRegion]);
    // Each user once, with the password grant's client — only when that client authenticated.
    const passwordClient: ClientName = profile.credentials.clients.usPasswordClient ? 'usPasswordClient' : 'usClient';
    const clientAnswer = clients.find((c) => c.client === passwordClient)?.answer;
    // A password client refused on client_credentials may still take the password grant (above): only a lockout stops the users' probes.
    const clientWorks =
      profile.authUrlUs !== undefined &&
      clientAnswer !== undefined &&
      clientAnswer.status !== 429 &&
      !(refused(clientAnswer) && !passwordClients.includes(passwordClient));
    const users = clientWorks
      ? await Promise.all(
          preflightUsers
            .filter((u) => profile.credentials.users[u])
            .map(async (user): Promise<UserProbe> => {
              const answer = await post(profile.authUrlUs!, 'us', passwordClient, user);
              return {
                user,
                field: userFieldOf(profile, user),
                client: passwordClient,
                clientField: fieldOf(profile, passwordClient),
                ...(answer ? { answer } : {}),
              };
            }),
        )
      : [];
    // Another password client refused on client_credentials: its own password grant (with the user) tells a wrong secret from a grant it lacks.
    const otherPasswordClients =
      profile.authUrlUs !== undefined && profile.credentials.users.user
        ? passwordClients.filter((c) => c !== passwordClient && refused(clients.find((p) => p.client === c)?.answer))
        : [];
    const byClient = await Promise.all(
      otherPasswordClients.map(async (client): Promise<UserProbe> => {
        const answer = await post(profile.authUrlUs!, 'us', client, 'user');
        return {
          user: 'user',
          field: userFieldOf(profile, 'user'),
          client,
          clientField: fieldOf(profile, client),
          ...(answer ? { answer } : {}),
        };
      }),
    );
    users.push(...byClient);
    return classifyPreflight({
      clients,
      users,
      ...(usClientAtEu ? { usClientAtEu } : {}),
      ...(profile.authUrlEu ? { authUrlEu: profile.authUrlEu } : {}),
      ...(profile.environment ? { environment: profile.environment } : {}),
    });
  } finally {
    await poster.close();
  }
}
