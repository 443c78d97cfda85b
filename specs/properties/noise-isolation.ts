// Which part of a request broke the answer: its faults, or the harmless noise around them (a
// charset parameter, extra parameters, %-escaped fields, HTTP Basic). When the answer to a request
// with noise is wrong, the same request is sent again without the noise (the bare request), then
// with one kind of noise at a time:
//   - the bare request is wrong too: the faults' requirements are broken (for a valid request, the
//     grant itself is broken: that is its own checks' finding, so the input is not judged here);
//   - the bare request is right: the noise kinds that break the request on their own are blamed
//     (TOKEN-REQ-002, -007, -012, AUTH-CLI-002); if none does alone, all of them together.
// Control requests are sent only after a wrong answer: a target that answers right pays nothing.
import type { Finding } from './attributed-property.ts';
import type { Fault, Noise, TokenInput } from './token-request.oracle.ts';

interface NoiseKind {
  requirement: string;
  present(n: Noise): boolean;
  /** `bare` with only this kind of noise, as in `from`. */
  keep(bare: Noise, from: Noise): Noise;
}

const kinds: NoiseKind[] = [
  { requirement: 'TOKEN-REQ-007', present: (n) => n.extra.length > 0, keep: (b, f) => ({ ...b, extra: f.extra }) },
  { requirement: 'TOKEN-REQ-012', present: (n) => n.escapeClientId && !n.basic, keep: (b, f) => ({ ...b, escapeClientId: f.escapeClientId }) },
  { requirement: 'TOKEN-REQ-002', present: (n) => n.charset, keep: (b, f) => ({ ...b, charset: f.charset }) },
  { requirement: 'AUTH-CLI-002', present: (n) => n.basic, keep: (b, f) => ({ ...b, basic: f.basic }) },
];

/** Faults that only exist with HTTP Basic: then Basic is part of the fault, not noise. */
const needsBasic = (faults: Fault[]) => faults.some((f) => f.kind === 'basic-and-form-secret');

/** The noise of `input` with everything droppable dropped (HTTP Basic stays where a fault needs it). */
export function bareNoise(input: TokenInput): Noise {
  return { extra: [], escapeClientId: false, charset: false, basic: needsBasic(input.faults) ? input.noise.basic : false };
}

/** Sends a control request and says whether its answer is the one the oracle expects (in every part). */
export type AnswersRight = (input: TokenInput) => Promise<boolean>;

/**
 * The findings of `input` with the noise to blame sorted out. `answersRight` sends a control
 * request; `own` are the requirements the expected answer of `input` came from. Returns
 * 'not-judged' for a valid request whose bare form fails too.
 */
export async function isolateNoise(input: TokenInput, own: readonly string[], findings: Finding[], answersRight: AnswersRight): Promise<Finding[] | 'not-judged'> {
  const mine = findings.filter((f) => own.includes(f.requirement));
  const basicIsNoise = !needsBasic(input.faults);
  const present = kinds.filter((k) => k.present(input.noise) && (k.requirement !== 'AUTH-CLI-002' || basicIsNoise));
  if (mine.length === 0 || present.length === 0) return findings;
  const bare = bareNoise(input);
  if (!(await answersRight({ ...input, noise: bare }))) return input.faults.length === 0 ? 'not-judged' : findings;
  const blamed: string[] = [];
  for (const k of present) {
    if (!(await answersRight({ ...input, noise: k.keep(bare, input.noise) }))) blamed.push(k.requirement);
  }
  const culprits = blamed.length > 0 ? blamed : present.map((k) => k.requirement);
  const first = mine[0]!;
  const others = findings.filter((f) => !own.includes(f.requirement));
  return [...others, ...culprits.map((requirement) => ({ requirement, expected: first.expected, actual: `${first.actual}; without that noise the request got the expected answer` }))];
}
