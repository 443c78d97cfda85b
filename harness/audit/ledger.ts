// What the audit saw, per requirement: in how many exchanges it was exercised and held, and the
// findings that break it (each naming its exchanges). A finding keeps at most a few exchange
// references, and a requirement at most a few findings in full, so that memory stays bounded on
// traffic of any size; the counts stay exact.
import type { ExchangeRef } from './exchange.ts';

export interface Finding {
  requirement: string;
  message: string;
  exchanges: ExchangeRef[];
}

export interface RequirementLedger {
  /** Exchanges that exercised it (each counted once, however many judges looked). */
  observed: number;
  lastExchange?: string;
  lastFailed?: string;
  failures: number;
  findings: Finding[];
}

const keptFindings = 20;

export class Ledger {
  readonly #byId = new Map<string, RequirementLedger>();

  #of(id: string): RequirementLedger {
    let l = this.#byId.get(id);
    if (!l) {
      l = { observed: 0, failures: 0, findings: [] };
      this.#byId.set(id, l);
    }
    return l;
  }

  #count(l: RequirementLedger, at: ExchangeRef | undefined): void {
    const key = at ? `${at.file}\u0000${at.index}` : undefined;
    if (key !== undefined && key === l.lastExchange) return;
    l.observed += 1;
    if (key !== undefined) l.lastExchange = key;
  }

  /** The exchange (`at`) exercised the requirement and held to it. */
  held(id: string, at?: ExchangeRef): void {
    this.#count(this.#of(id), at);
  }

  /** The exchanges break the requirement (the last one is where it shows). */
  broke(id: string, message: string, exchanges: ExchangeRef[]): void {
    const l = this.#of(id);
    const at = exchanges[exchanges.length - 1];
    this.#count(l, at);
    const key = at ? `${at.file}\u0000${at.index}` : undefined;
    if (key === undefined || key !== l.lastFailed) l.failures += 1;
    l.lastFailed = key;
    if (l.findings.length < keptFindings) l.findings.push({ requirement: id, message, exchanges: exchanges.slice(-4) });
  }

  /** Holds when `ok`, else breaks with the message. */
  judge(id: string, ok: boolean, message: () => string, exchanges: () => ExchangeRef[]): void {
    if (ok) this.held(id, exchanges().at(-1));
    else this.broke(id, message(), exchanges());
  }

  get(id: string): RequirementLedger | undefined {
    return this.#byId.get(id);
  }

  findings(): Finding[] {
    return [...this.#byId.values()].flatMap((l) => l.findings);
  }
}
