// Command: a protected call with one of the access tokens issued so far. Accepted while it lives
// (STATE-CC-001, STATE-PW-001, LIMIT-AT-LIFETIME-001), refused with 401 once expires_in passed
// (STATE-AT-EXP-001), refused when its family was revoked (STATE-RT-FAMILY-002) or a refresh
// replaced it and the target declares that revokes it (OI-15). Paced within the profile's rate limit.
import type fc from 'fast-check';
import { disagree, type AccessTokenModel, type LifecycleModel, type RealSystem } from './lifecycle.model.ts';

export class CallApiCommand implements fc.AsyncCommand<LifecycleModel, RealSystem> {
  constructor(readonly pick: number) {}

  check(m: Readonly<LifecycleModel>): boolean {
    return m.access.length > 0;
  }

  async run(m: LifecycleModel, r: RealSystem): Promise<void> {
    const a: AccessTokenModel = m.access[this.pick % m.access.length]!;
    const predicted = m.accepts(a);
    await r.pacer.slot();
    const res = await r.api.person('existing', { token: r.accessTokens.get(a.id)! });
    const label = `${this.toString()} (${a.kind} at#${a.id} issued t=${a.issuedAt}s, expires_in ${a.expiresIn}, now t=${m.now}s)`;
    const refused = res.status >= 400 && res.status < 500;
    const expired = predicted === 'no' && !a.replaced && (a.family === undefined || m.familyOf({ family: a.family } as never) !== 'revoked');
    // The requirement behind the prediction: a live token (its grant's, or its lifetime's once time
    // passed, or OI-15's after a refresh), an expired one, a replaced one, a revoked family.
    const refreshed = a.issuedWith !== undefined && m.refresh.some((rt) => rt.id === a.issuedWith && rt.used);
    const liveRule = refreshed ? 'STATE-AT-AFTER-REFRESH-001' : m.now > a.issuedAt ? 'LIMIT-AT-LIFETIME-001' : a.kind === 'client_credentials' ? 'STATE-CC-001' : 'STATE-PW-001';
    const deadRule = a.replaced ? 'STATE-AT-AFTER-REFRESH-001' : expired ? 'STATE-AT-EXP-001' : 'STATE-RT-FAMILY-002';
    if (predicted === 'yes' && res.status !== 200) disagree(label, '200 (the token lives)', res.describe(), liveRule);
    if (predicted === 'no' && expired && res.status !== 401) disagree(label, '401 (the token expired)', res.describe(), deadRule);
    if (predicted === 'no' && !refused) disagree(label, 'a refusal (4xx)', res.describe(), deadRule);
    // Unpredicted (near a boundary, or a family the model cannot tell): neither accepted nor refused breaks the token's acceptance rule.
    if (predicted === 'either' && res.status !== 200 && !refused) disagree(label, '200 or a refusal (4xx)', res.describe(), liveRule);
  }

  toString(): string {
    return `call-api(${this.pick})`;
  }
}
