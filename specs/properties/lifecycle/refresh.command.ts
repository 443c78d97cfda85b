// Command: refresh with a refresh token that was never used. Before its 7 days end (from the
// declared anchor, OI-4) it is exchanged once for a new access token and a new refresh token of
// the same family, both different (GRANT-RT-001/002; also after the access token expired,
// STATE-RT-UNUSED-002); after them, or once its family was revoked, invalid_grant (STATE-RT-EXP-001).
import type fc from 'fast-check';
import { tokenErrorResult, tokenIssuedResult } from '../../../fixtures/matchers.ts';
import { disagree, lifetimeOf, type LifecycleModel, type Prediction, type RealSystem, type RefreshTokenModel } from './lifecycle.model.ts';

export class RefreshTokenCommand implements fc.AsyncCommand<LifecycleModel, RealSystem> {
  constructor(readonly pick: number) {}

  private candidates(m: LifecycleModel): RefreshTokenModel[] {
    return m.usable((rt) => !rt.used);
  }

  check(m: Readonly<LifecycleModel>): boolean {
    return this.candidates(m as LifecycleModel).length > 0;
  }

  async run(m: LifecycleModel, r: RealSystem): Promise<void> {
    const list = this.candidates(m);
    const old = list[this.pick % list.length]!;
    let predicted: Prediction = m.familyOf(old) === 'revoked' ? 'no' : m.before(m.refreshTokenEnd(old));
    if (predicted === 'yes' && m.passwordGrant() !== 'yes') predicted = 'either'; // the 45-day rule's effect on refresh tokens is not shown
    const res = await r.tokenClient.refresh(r.refreshTokens.get(old.id)!);
    const label = `${this.toString()} (rt#${old.id}, t=${m.now}s)`;
    const refuseRule = m.familyOf(old) === 'revoked' ? 'STATE-RT-FAMILY-001' : 'STATE-RT-EXP-001';
    const acceptRule = m.now >= old.issuedAt + old.accessExpiresIn ? 'STATE-RT-UNUSED-002' : m.now > old.issuedAt ? 'LIMIT-RT-LIFETIME-001' : 'GRANT-RT-001';
    if (predicted === 'no' || (predicted === 'either' && res.status !== 200)) {
      const refused = tokenErrorResult(res, 'invalid_grant', {});
      if (!refused.pass) disagree(label, 'invalid_grant', refused.message(), refuseRule);
      if (predicted === 'either') m.families.set(old.family, 'unknown');
      return;
    }
    // A refresh that issues an access token without a new refresh token does not rotate it: GRANT-RT-002
    // (the refresh was accepted, so not the acceptance rule), as is one that returns the same refresh token.
    if (res.status === 200 && res.accessToken !== undefined && res.refreshToken === undefined) disagree(label, 'a new refresh_token', `no refresh_token (${res.describe()})`, 'GRANT-RT-002');
    const ok = tokenIssuedResult(res);
    if (!ok.pass || res.refreshToken === undefined) disagree(label, 'a new access token and refresh_token', ok.pass ? 'no refresh_token' : ok.message(), acceptRule);
    if (res.refreshToken === r.refreshTokens.get(old.id)) disagree(label, 'a different refresh_token', 'the same refresh_token', 'GRANT-RT-002');
    if ([...r.accessTokens.values()].includes(res.accessToken!)) disagree(label, 'a new access_token', 'an access_token issued before', 'GRANT-RT-002');
    old.used = true;
    if (m.options.accessTokenAfterRefresh === 'revoked') for (const a of m.access) if (a.issuedWith === old.id) a.replaced = true;
    const expiresIn = lifetimeOf(r.target, 'password', Number(res.expiresIn));
    const rt = m.newId();
    const at = m.newId();
    m.refresh.push({ id: rt, family: old.family, issuedAt: m.now, accessExpiresIn: expiresIn, used: false });
    m.access.push({ id: at, kind: 'password', issuedAt: m.now, expiresIn, family: old.family, issuedWith: rt, replaced: false });
    r.refreshTokens.set(rt, res.refreshToken);
    r.accessTokens.set(at, res.accessToken!);
  }

  toString(): string {
    return `refresh-token(${this.pick})`;
  }
}
