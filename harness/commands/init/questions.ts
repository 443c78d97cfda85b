// `init` with no flags on a terminal: its questions, whose answers become the flags.
import { createInterface } from 'node:readline/promises';
import { clientNames, userNames } from '../../../core/profile/profile.schema.ts';

/** Asks one question, returns the answer (trimmed; empty for "leave it out"). */
export type Ask = (question: string) => Promise<string>;

/** Questions on a terminal, for what the flags did not give (`init` with no flags on a TTY). */
export function terminalAsk(): { ask: Ask; close: () => void } {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  return { ask: async (q) => (await rl.question(q)).trim(), close: () => rl.close() };
}

/** The flags a user would have typed, from answers to questions. */
export async function askForFlags(ask: Ask): Promise<string[]> {
  const args: string[] = [];
  const add = async (flag: string, question: string) => {
    const answer = await ask(question);
    // FLAG=VALUE: an answer may begin with a dash (a malformed identifier such as -E1001).
    if (answer !== '') args.push(`${flag}=${answer}`);
  };
  const yes = async (flag: string, question: string) => {
    if (/^y(es)?$/i.test(await ask(`${question} [y/N] `))) args.push(flag);
  };
  await add('--name', 'Target name (shown in reports): ');
  await add('--out', 'Profile file to write (e.g. conformance/staging.jsonc): ');
  await add('--auth-url-us', 'US token server origin, e.g. https://auth-us.example.com (empty: none): ');
  await add('--auth-url-eu', 'EU token server origin (empty: none): ');
  await add('--base-url', 'Protected APIs origin behind the gateway (empty: none): ');
  await add('--environment', 'Environment of the credentials, sandbox or production (empty: not said): ');
  for (const [flag, kind, names] of [
    ['--client', 'clients (NAME=CLIENT_ID', clientNames],
    ['--user', 'users (NAME=tenant\\user', userNames.filter((n) => n !== 'burnableUser')],
  ] as const) {
    const answer = await ask(`Existing ${kind}, comma-separated; names: ${names.join(', ')}): `);
    for (const pair of answer
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== ''))
      args.push(flag, pair);
  }
  const shaped = await ask(
    'Extra token parameters the deployment demands, CLIENT.NAME=VALUE comma-separated (e.g. usClient.scope=people.read; empty: none — init asks the target when a secret is set): ',
  );
  for (const pair of shaped
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== ''))
    args.push('--token-parameter', pair);
  await add(
    '--burnable-user',
    'A user whose refresh tokens the suite may burn, tenant\\user (empty: none — the refresh-token family checks then SKIP): ',
  );
  await add(
    '--person-existing',
    'A person identifier GET /v1/people/er/{identifier} answers 200 for (comma-separated candidates; empty: none — the gateway checks then SKIP): ',
  );
  if (args.some((a) => a.startsWith('--person-existing='))) {
    await yes(
      '--find-people',
      'Ask the target to check it and to find a missing and a malformed identifier (needs the usClient secret set now)?',
    );
    if (!args.includes('--find-people')) {
      await add('--person-missing', 'A well-formed identifier with no record (000-5003): ');
      await add('--person-malformed', 'An identifier that is not well formed (000-5001): ');
    }
  }
  await add('--cc-lifetime', 'expires_in of client_credentials tokens, in seconds, if fixed (empty: not checked): ');
  await add('--pw-lifetime', 'expires_in of password tokens, in seconds, if fixed (empty: not checked): ');
  await yes('--basic', 'Do the token endpoints take HTTP Basic client authentication?');
  await add(
    '--rate-limit',
    'Gateway rate limits, if known: calls per second/per window/window seconds, e.g. 50/1000/60, or only the known ones, e.g. spike=5 or quota=100,window=60 (empty: unknown): ',
  );
  await add(
    '--state',
    'A state file for the time-dependent checks without clock control, e.g. conformance/staging.state (empty: none — they SKIP): ',
  );
  if (args.some((a) => a.startsWith('--state=')))
    await add('--state-key-env', 'The environment variable holding its key (empty: PREFIX_STATE_KEY): ');
  return args;
}
