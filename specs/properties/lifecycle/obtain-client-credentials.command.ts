// Command: a client_credentials request. Always issues a token without refresh_token (spec §3
// row 1), also after earlier ones expired (STATE-AT-EXP-002); expires_in as the profile declares.
import type fc from 'fast-check';
import { tokenIssuedResult } from '../../../fixtures/matchers.ts';
import { disagree, lifetimeOf, type LifecycleModel, type RealSystem } from './lifecycle.model.ts';

export class ObtainClientCredentialsCommand implements fc.AsyncCommand<LifecycleModel, RealSystem> {
  check(): boolean {
    return true;
  }

  async run(m: LifecycleModel, r: RealSystem): Promise<void> {
    const res = await r.tokenClient.clientCredentials();
    const ok = tokenIssuedResult(res);
    // STATE-AT-EXP-002 once an earlier client_credentials token expired; otherwise the grant itself.
    const afterExpiry = m.access.some((a) => a.kind === 'client_credentials' && m.now >= a.issuedAt + a.expiresIn) ? 'STATE-AT-EXP-002' : 'GRANT-CC-001';
    if (!ok.pass) disagree(this.toString(), 'a token', ok.message(), afterExpiry);
    if (res.refreshToken !== undefined) disagree(this.toString(), 'no refresh_token', 'a refresh_token', 'GRANT-CC-001');
    const expiresIn = lifetimeOf(r.target, 'client_credentials', Number(res.expiresIn));
    if (Number(res.expiresIn) !== expiresIn) disagree(this.toString(), `expires_in ${expiresIn}`, `expires_in ${String(res.expiresIn)}`, 'LIMIT-AT-LIFETIME-001');
    const id = m.newId();
    m.access.push({ id, kind: 'client_credentials', issuedAt: m.now, expiresIn, replaced: false });
    r.accessTokens.set(id, res.accessToken!);
  }

  toString(): string {
    return 'obtain-client-credentials';
  }
}
