// `npx token-conformance init --out FILE --name NAME --auth-url-us URL … --client usClient=ID …`:
// writes a commented target profile from flags (non-interactive, for CI and scripts) or from the
// answers to its questions (on a terminal), validates what it wrote with the same loader `run`
// uses, prints the `export` lines of the secrets it references, and ends with what the profile
// will let a run verify and what it will SKIP, and why (init/profile-outlook.ts). Everything a full
// run needs or benefits from is asked: people identifiers (which `--find-people` asks the target
// for), lifetimes, Basic support, a burnable user, the state file and its key, rate limits.
// Interpretations are left out: the profile declares nothing it was not told.
// Exit codes: 0 written, 2 bad arguments or a profile that would not load.
import type { Learned } from '../init/learn-deployment.ts';
import type { ClientTokenParameters } from '../init/token-parameters-flag.ts';
import { processIo, type CommandIo } from './command-io.ts';
import { learnDeployment } from './init/deployment.phase.ts';
import type { InitDeps } from './init/init-deps.ts';
import { parseInitArgs } from './init/options.ts';
import { printOutlook } from './init/outlook.phase.ts';
import { peopleOf } from './init/people.phase.ts';
import { askForFlags, terminalAsk, type Ask } from './init/questions.ts';
import { renderProfile } from './init/render-profile.ts';
import { writeProfile } from './init/write.phase.ts';

export type { InitDeps } from './init/init-deps.ts';

export async function initMain(
  args: string[],
  io: CommandIo = processIo,
  ask?: Ask,
  deps: InitDeps = {},
): Promise<number> {
  // No flags on a terminal: ask (the answers become the flags, validated the same way).
  if (args.length === 0 && (ask !== undefined || (process.stdin.isTTY && process.stdout.isTTY))) {
    const terminal = ask === undefined ? terminalAsk() : undefined;
    try {
      const questions = ask ?? terminal!.ask;
      args = await askForFlags(questions);
      // The deployment probe may ask what a refused token request demands, on the same terminal.
      return await initFromFlags(args, io, { ask: questions, ...deps });
    } finally {
      terminal?.close();
    }
  }
  return initFromFlags(args, io, deps);
}

/**
 * `init` from flags: a sequence of phases, each a function of what the ones before it produced —
 * the flags, what the deployment demands of a token request, the people identifiers, the profile
 * validated and written, its outlook.
 */
async function initFromFlags(args: string[], io: CommandIo, deps: InitDeps): Promise<number> {
  const parsed = parseInitArgs(args, io);
  if (typeof parsed === 'number') return parsed;
  const { values: v, out, base, declaredParameters } = parsed;
  const probing = v['find-people'] || declaredParameters.size > 0 || deps.ask !== undefined;
  const learned = probing ? await learnDeployment(base, declaredParameters, io, deps) : new Map<string, Learned>();
  const tokenParameters = new Map<string, { parameters: ClientTokenParameters; verified: boolean }>();
  for (const [client, parameters] of declaredParameters) tokenParameters.set(client, { parameters, verified: false });
  for (const [client, l] of learned)
    if (l.parameters) tokenParameters.set(client, { parameters: l.parameters, verified: l.verified });
  if (tokenParameters.size > 0) base.tokenParameters = tokenParameters;
  const people = await peopleOf(v, base, io, deps);
  if (typeof people === 'number') return people;
  const rendered = renderProfile({ ...base, ...(people ? { people } : {}) });
  const written = writeProfile(out, rendered, base.state?.keyEnv, io);
  if (typeof written === 'number') return written;
  if (!v['no-outlook']) await printOutlook(written.profile, io, deps);
  return 0;
}
