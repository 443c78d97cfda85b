// Finding people: resources.people as given, or as the target answers GET /v1/people/er/{identifier}
// (--find-people).
import { findPeople } from '../../init/find-people.ts';
import { parametersFor } from '../../init/token-parameters-flag.ts';
import type { CommandIo } from '../command-io.ts';
import type { InitDeps } from './init-deps.ts';
import type { ProfileAnswers } from './render-profile.ts';

/** resources.people: as given, or as the target answered (--find-people); a number is the exit code of a refusal. */
export async function peopleOf(
  v: { 'person-existing'?: string; 'person-missing'?: string; 'person-malformed'?: string; 'find-people': boolean },
  base: ProfileAnswers,
  io: CommandIo,
  deps: InitDeps,
): Promise<ProfileAnswers['people'] | number | undefined> {
  const candidates = (v['person-existing'] ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  const missing = v['person-missing'];
  const malformed = v['person-malformed'];
  if (candidates.length === 0) {
    if (missing === undefined && malformed === undefined) return undefined;
    io.err(
      'token-conformance init: --person-missing and --person-malformed need --person-existing (the checks that use them call with the existing one too)',
    );
    return 2;
  }
  const given = {
    existing: candidates[0]!,
    ...(missing !== undefined ? { missing } : {}),
    ...(malformed !== undefined ? { malformed } : {}),
  };
  if (!v['find-people']) return given;
  const env = deps.env ?? process.env;
  const client = base.clients.get('usClient');
  const secretVar = `${base.envPrefix}US_CLIENT_SECRET`;
  if (!base.authUrlUs || !base.baseUrl || client === undefined || !env[secretVar]) {
    io.err(
      `token-conformance init: --find-people needs --auth-url-us, --base-url, --client usClient=ID and its secret in $${secretVar} (set it now: init sends one token request and a few GETs)`,
    );
    return 2;
  }
  const shaped = base.tokenParameters?.get('usClient');
  const found = await (deps.findPeople ?? findPeople)(
    {
      authUrlUs: base.authUrlUs,
      baseUrl: base.baseUrl,
      clientId: client,
      clientSecret: env[secretVar],
      ...(shaped ? { tokenParameters: parametersFor(shaped.parameters, 'client_credentials') } : {}),
      ...(base.caFile ? { caFile: base.caFile } : {}),
    },
    {
      existing: candidates,
      ...(missing !== undefined ? { missing } : {}),
      ...(malformed !== undefined ? { malformed } : {}),
    },
  );
  io.out('asked the target for person identifiers (GET /v1/people/er/{identifier}):');
  for (const l of found.lines) io.out(l);
  // What the user gave is kept whatever the target answered: the run judges it; init says what it saw.
  const keptMissing = found.missing ?? missing;
  const keptMalformed = found.malformed ?? malformed;
  const people = {
    existing: found.existing ?? given.existing,
    ...(keptMissing !== undefined ? { missing: keptMissing } : {}),
    ...(keptMalformed !== undefined ? { malformed: keptMalformed } : {}),
  };
  if (found.existing === undefined)
    io.out(
      `  → existing ${given.existing} kept as you gave it: the target did not answer it 200 here (the run's checks say what it does)`,
    );
  const lacking = [
    keptMissing === undefined && 'missing one (a well-formed identifier with no record, 000-5003)',
    keptMalformed === undefined && 'malformed one (an identifier not well formed, 000-5001)',
  ].filter(Boolean);
  io.out(
    `  → resources.people: existing ${people.existing}${keptMissing ? `, missing ${keptMissing}` : ''}${keptMalformed ? `, malformed ${keptMalformed}` : ''}${lacking.length > 0 ? `; no ${lacking.join(', no ')}: the checks that need one SKIP naming it` : ''}`,
  );
  return people;
}
