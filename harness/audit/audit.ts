// The audit itself: every exchange of the traffic files, in time order per file and files in the
// order given, classified, judged alone and then on the timeline. What it saw goes to a Ledger.
import type { TargetProfile } from '../../core/profile/profile.schema.ts';
import { auditContext } from './audit-context.ts';
import { addressesOf, classify, type ExchangeKind } from './classify.ts';
import { Ledger } from './ledger.ts';
import { protectedJudged, judgeProtectedExchange } from './protected-judges.ts';
import { exchangesOf, trafficFormat, type TrafficFormat } from './read-traffic.ts';
import type { Digester } from './secret-digest.ts';
import { Timeline, timelineJudged } from './timeline.ts';
import { judgeTokenExchange, tokenJudged } from './token-judges.ts';

/** Every requirement some judge of the audit can break; the others read UNOBSERVED with that reason. */
export const auditJudged: ReadonlySet<string> = new Set([
  ...tokenJudged,
  ...protectedJudged,
  ...timelineJudged,
  'SEC-TLS-002',
  'SEC-TLS-005',
]);

export interface AuditedFile {
  file: string;
  format: TrafficFormat;
  exchanges: number;
  skipped: number;
}

export interface AuditResult {
  ledger: Ledger;
  files: AuditedFile[];
  kinds: Record<ExchangeKind, number>;
  /** Entries that could not be read (skipped, with why): at most the first few. */
  skipped: { file: string; index: number; why: string }[];
  firstAt?: string;
  lastAt?: string;
}

export interface AuditOptions {
  profile?: TargetProfile;
  digester: Digester;
  known?: readonly string[];
}

export async function audit(files: readonly string[], options: AuditOptions): Promise<AuditResult> {
  const ledger = new Ledger();
  const ctx = auditContext(ledger, options.profile);
  const timeline = new Timeline(ctx);
  const addresses = addressesOf(options.profile);
  const kinds: Record<ExchangeKind, number> = {
    'token-us': 0,
    'token-eu': 0,
    'token-other-version': 0,
    protected: 0,
    clock: 0,
    other: 0,
  };
  const result: AuditResult = { ledger, files: [], kinds, skipped: [] };
  for (const file of files) {
    const audited: AuditedFile = { file, format: trafficFormat(file), exchanges: 0, skipped: 0 };
    result.files.push(audited);
    const onSkip = (f: string, index: number, why: string) => {
      audited.skipped += 1;
      if (result.skipped.length < 20) result.skipped.push({ file: f, index, why });
    };
    for await (const exchange of exchangesOf(file, {
      digester: options.digester,
      ...(options.known ? { known: options.known } : {}),
      onSkip,
    })) {
      audited.exchanges += 1;
      if (result.firstAt === undefined || exchange.startedAt < result.firstAt) result.firstAt = exchange.startedAt;
      if (result.lastAt === undefined || exchange.startedAt > result.lastAt) result.lastAt = exchange.startedAt;
      const c = classify(exchange, addresses);
      kinds[c.kind] += 1;
      if (c.kind === 'other') continue;
      if (c.kind !== 'clock') judgeTransport(c, ledger);
      if (c.kind === 'protected') judgeProtectedExchange(c, ctx);
      else if (c.kind !== 'clock') judgeTokenExchange(c, ctx);
      timeline.observe(c);
    }
  }
  return result;
}

/** SEC-TLS-002 (no answer of substance over plain HTTP) and SEC-TLS-005 (HSTS on HTTPS answers). */
function judgeTransport(c: ReturnType<typeof classify>, ledger: Ledger): void {
  const res = c.exchange.response;
  if (!res || !c.url) return;
  const at = () => [{ file: c.exchange.file, index: c.exchange.index, time: c.exchange.startedAt }];
  if (c.url.protocol === 'http:') {
    const text = res.body.text ?? '';
    const evaluated = /"access_token"|"error"\s*:|\b000-\d{4}\b/.test(text) || (res.status >= 200 && res.status < 300);
    ledger.judge(
      'SEC-TLS-002',
      !evaluated,
      () =>
        `a ${c.kind === 'protected' ? 'protected call' : 'token request'} over plain HTTP was answered ${res.status} by the service itself`,
      at,
    );
    return;
  }
  const hsts = res.headers.some(([n]) => n.toLowerCase() === 'strict-transport-security');
  ledger.judge(
    'SEC-TLS-005',
    hsts,
    () =>
      `an HTTPS answer (${res.status}) of the ${c.kind === 'protected' ? 'protected API' : 'token endpoint'} carries no Strict-Transport-Security`,
    at,
  );
}
