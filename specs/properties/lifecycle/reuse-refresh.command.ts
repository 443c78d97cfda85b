// Command: present a refresh token that was already used. Always invalid_grant
// (STATE-RT-USED-001/002). With family revocation modelled (RFC 9700 §4.14.2, ADVISORY:
// STATE-RT-FAMILY-001/002) the whole family is revoked, its refresh and access tokens refused;
// without it the model no longer predicts that family's tokens (the catalogue requires neither).
import type fc from 'fast-check';
import { tokenErrorResult } from '../../../fixtures/matchers.ts';
import { disagree, type LifecycleModel, type RealSystem, type RefreshTokenModel } from './lifecycle.model.ts';

export class ReuseRefreshTokenCommand implements fc.AsyncCommand<LifecycleModel, RealSystem> {
  constructor(readonly pick: number) {}

  private candidates(m: LifecycleModel): RefreshTokenModel[] {
    return m.usable((rt) => rt.used);
  }

  check(m: Readonly<LifecycleModel>): boolean {
    return this.candidates(m as LifecycleModel).length > 0;
  }

  async run(m: LifecycleModel, r: RealSystem): Promise<void> {
    const list = this.candidates(m);
    const used = list[this.pick % list.length]!;
    const res = await r.tokenClient.refresh(r.refreshTokens.get(used.id)!);
    const refused = tokenErrorResult(res, 'invalid_grant', {});
    // STATE-RT-USED-002 once the refresh token that replaced it was used in turn.
    const replacedUsed = m.refresh.some((rt) => rt.family === used.family && rt.id > used.id && rt.used);
    if (!refused.pass) disagree(`${this.toString()} (rt#${used.id}, t=${m.now}s)`, 'invalid_grant for a used refresh token', refused.message(), replacedUsed ? 'STATE-RT-USED-002' : 'STATE-RT-USED-001');
    const stillValid = m.before(m.refreshTokenEnd(used)) === 'yes';
    if (m.familyOf(used) === 'live') m.families.set(used.family, m.options.familyRevocation && stillValid ? 'revoked' : 'unknown');
  }

  toString(): string {
    return `reuse-refresh-token(${this.pick})`;
  }
}
