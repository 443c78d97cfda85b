// Command: a password grant for the profile's burnableUser. Issues an access token and a refresh
// token that starts a new family (spec §3 row 2; STATE-PW-002: also while earlier ones are
// unused), until the password is 45 days old: then invalid_grant (LIMIT-PWD-001).
import type fc from 'fast-check';
import { tokenErrorResult, tokenIssuedResult } from '../../../fixtures/matchers.ts';
import { disagree, lifetimeOf, type LifecycleModel, type RealSystem } from './lifecycle.model.ts';

export class ObtainPasswordCommand implements fc.AsyncCommand<LifecycleModel, RealSystem> {
  check(): boolean {
    return true;
  }

  async run(m: LifecycleModel, r: RealSystem): Promise<void> {
    const predicted = m.passwordGrant();
    const res = await r.tokenClient.password({ user: 'burnableUser' });
    if (predicted === 'no' || (predicted === 'either' && res.status !== 200)) {
      const refused = tokenErrorResult(res, 'invalid_grant', {});
      if (!refused.pass) disagree(this.toString(), 'invalid_grant (password older than 45 days)', refused.message(), 'LIMIT-PWD-001');
      m.passwordExpired = true;
      return;
    }
    const ok = tokenIssuedResult(res);
    // Refused before the 45-day edge: LIMIT-PWD-001 once the clock moved, STATE-PW-002 while an earlier refresh token is unused, else the grant itself.
    const acceptRule = m.now > 0 ? 'LIMIT-PWD-001' : m.refresh.some((rt) => !rt.used) ? 'STATE-PW-002' : 'GRANT-PW-001';
    if (!ok.pass || res.refreshToken === undefined) disagree(this.toString(), 'a token with a refresh_token', ok.pass ? 'no refresh_token' : ok.message(), acceptRule);
    const expiresIn = lifetimeOf(r.target, 'password', Number(res.expiresIn));
    if (Number(res.expiresIn) !== expiresIn) disagree(this.toString(), `expires_in ${expiresIn}`, `expires_in ${String(res.expiresIn)}`, 'LIMIT-AT-LIFETIME-001');
    const family = m.newId();
    m.families.set(family, 'live');
    const rt = m.newId();
    const at = m.newId();
    m.refresh.push({ id: rt, family, issuedAt: m.now, accessExpiresIn: expiresIn, used: false });
    m.access.push({ id: at, kind: 'password', issuedAt: m.now, expiresIn, family, issuedWith: rt, replaced: false });
    r.refreshTokens.set(rt, res.refreshToken);
    r.accessTokens.set(at, res.accessToken!);
  }

  toString(): string {
    return 'obtain-password';
  }
}
