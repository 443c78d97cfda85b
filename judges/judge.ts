// A judge: the one function that decides one requirement from what a target answered. It reads a
// step — one classified exchange, what came before it on the target's clock (the token history),
// and the profile's choices — and says whether the step exercised the requirement and, if so,
// whether the requirement held, with the evidence. `run`'s checks call it on the exchanges they
// drove (fixtures' `toSatisfy`), `audit` on every recorded exchange; both reach the same verdict
// because they call the same function.
import type { InterpretationKey, JudgeChoices } from './choices.ts';
import type { Classified } from './classify.ts';
import { refOf, type ExchangeRef } from './exchange.ts';
import type { HistoryView } from './token-history.ts';

/**
 * What a judge needs to see: `exchange` — one exchange alone; `sequence` — the exchanges before it
 * too (what was issued, to whom, what was used); `clock` — the sequence on the target's clock (a
 * lifetime, a window). Whether traffic alone can judge a requirement is whether it has a judge; what
 * the judge needs says how much traffic it takes.
 */
export type JudgeNeeds = 'exchange' | 'sequence' | 'clock';

/** A step exercised the requirement: it held, or it broke it (the message says how). */
export interface Seen {
  held: boolean;
  /** Why it broke (absent when it held). */
  message?: string;
  /** The exchanges that show it, the judged one last (default: the judged one alone). */
  exchanges?: ExchangeRef[];
}

export interface Step {
  c: Classified;
  /** What the exchanges before this one established (empty for a lone exchange). */
  history: HistoryView;
}

export interface Judge {
  requirement: string;
  needs: JudgeNeeds;
  /** The interpretations its verdict depends on: a failure on an assumed (undeclared) one reads WARN. */
  uses?: readonly InterpretationKey[];
  /**
   * What of the requirement only its live check can decide, and why traffic cannot show it (a
   * refusal the check knows was due, a connection that never answered). The check decides that half
   * itself and hands every exchange it drove to the judge for the rest.
   */
  activeHalf?: string;
  /** Undefined when the step does not exercise the requirement. */
  judge(step: Step, choices: JudgeChoices): Seen | undefined;
}

/** Holds when `ok`; else breaks with the message (built only then). */
export const seen = (ok: boolean, message: () => string, exchanges?: ExchangeRef[]): Seen => ({
  held: ok,
  ...(ok ? {} : { message: message() }),
  ...(exchanges ? { exchanges } : {}),
});

/** A verdict of one judge on one step, as `audit` ledgers it and a live check asserts it. */
export interface Verdict {
  requirement: string;
  held: boolean;
  message?: string;
  exchanges: ExchangeRef[];
}

export const verdictOf = (judge: Judge, step: Step, s: Seen): Verdict => ({
  requirement: judge.requirement,
  held: s.held,
  ...(s.message !== undefined ? { message: s.message } : {}),
  exchanges: s.exchanges ?? [refOf(step.c.exchange)],
});
