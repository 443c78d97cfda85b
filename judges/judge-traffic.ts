// Exchanges in time order through the registry: each is classified by the profile's addresses,
// judged by every judge it exercises against the history of those before it, then folded into that
// history. `audit` streams recorded traffic through it; a live check hands it the exchanges it drove.
import type { TargetProfile } from '../core/profile/profile.schema.ts';
import { choicesOf, type JudgeChoices } from './choices.ts';
import { addressesOf, classify, type Addresses, type Classified, type ExchangeKind } from './classify.ts';
import type { Exchange } from './exchange.ts';
import { verdictOf, type Judge, type Verdict } from './judge.ts';
import { judges } from './registry.ts';
import { TokenHistory } from './token-history.ts';

export class TrafficJudgement {
  readonly choices: JudgeChoices;
  readonly #addresses: Addresses;
  readonly #history: TokenHistory;
  readonly #judges: readonly Judge[];

  /** `only`: the requirements to judge (default: every judge of the registry). */
  constructor(profile: TargetProfile | undefined, only?: readonly string[]) {
    this.choices = choicesOf(profile);
    this.#addresses = addressesOf(profile);
    this.#history = new TokenHistory(this.choices);
    this.#judges = only ? [...judges.values()].filter((j) => only.includes(j.requirement)) : [...judges.values()];
  }

  /**
   * The exchange classified, and the verdict of every judge it exercised. `otherwise`: what the
   * sender knows the exchange to be where the addresses cannot place it (a live check's call to the
   * gateway without a version segment is still a protected call).
   */
  observe(exchange: Exchange, otherwise?: ExchangeKind): { classified: Classified; verdicts: Verdict[] } {
    const placed = classify(exchange, this.#addresses);
    const c = placed.kind === 'other' && otherwise ? classify(exchange, this.#addresses, otherwise) : placed;
    if (c.kind === 'other' || !exchange.response) return { classified: c, verdicts: [] };
    const step = { c, history: this.#history.view(c) };
    const verdicts: Verdict[] = [];
    for (const judge of this.#judges) {
      const s = judge.judge(step, this.choices);
      if (s) verdicts.push(verdictOf(judge, step, s));
    }
    this.#history.fold(c, step.history);
    return { classified: c, verdicts };
  }
}
