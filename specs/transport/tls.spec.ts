// Transport (spec "All calls use TLS", §5.1, §8): HTTPS with a certificate that verifies for the host
// name (SEC-TLS-001), TLS 1.0 and 1.1 refused and TLS 1.2 accepted (SEC-TLS-004, RFC 8996), and
// HSTS (SEC-TLS-005, advisory). Certificates are verified against the system CAs plus the profile's
// caFile; verification is never switched off. On a plain-http address there is no handshake to
// judge and HSTS must not be sent (RFC 6797 §7.2): SEC-TLS-004/005 are BLOCKED by SEC-TLS-001,
// which FAILs on that address — unless the profile marks the target `local` (a throw-away server on
// the developer's machine, the only kind the profile lets be plain http): TLS is then no part of
// the setup, and all three are NOT_APPLICABLE naming `local`.
import type { TestInfo } from '@playwright/test';
import { expect, markBlocked, needs, requirement, test, type Target } from '../../fixtures/index.ts';
import { notApplicableWhenLocalPlainHttp } from '../../fixtures/support/transport/local-plain-http.ts';
import { tlsOutcome } from '../../fixtures/support/transport/tls-outcome.ts';

/** The three addresses of the spec, each with the need that makes it present and a URL under it. */
const surfaces: [string, 'us' | 'eu' | 'gateway', (t: Target) => string][] = [
  ['the US token endpoint', 'us', (t) => t.tokenUrl('us')],
  ['the EU token endpoint', 'eu', (t) => t.tokenUrl('eu')],
  [
    'the protected API',
    'gateway',
    (t) => t.apiUrl(`/v1/people/er/${encodeURIComponent(t.profile.resources.people?.existing ?? 'conformance')}`),
  ],
];

/** BLOCKED by SEC-TLS-001 when `address` is not https: the transport check has nothing to judge there. */
function requireHttps(target: Target, testInfo: TestInfo, what: string, address: string): void {
  if (new URL(address).protocol === 'https:') return;
  notApplicableWhenLocalPlainHttp(target, testInfo, what, address);
  markBlocked(testInfo, `${what} is a plain-http address (${new URL(address).origin}): no TLS to judge (SEC-TLS-001)`, {
    by: ['SEC-TLS-001'],
  });
}

test.describe('transport: TLS', () => {
  for (const [what, need, url] of surfaces) {
    test(
      `SEC-TLS-001 ${what} is served over HTTPS with a certificate that verifies for its host name`,
      requirement('SEC-TLS-001', needs(need)),
      async ({ target, rawHttp }, testInfo) => {
        const address = new URL(url(target));
        notApplicableWhenLocalPlainHttp(target, testInfo, what, address.toString());
        expect(address.protocol, `${what} is an https address`).toBe('https:');
        // The sender verifies the chain (system CAs + caFile) and the host name; a failure throws.
        const res = await rawHttp.send({
          method: 'GET',
          url: address.toString(),
          headers: [['accept', 'application/json']],
        });
        expect(res.status, 'an HTTP answer over the verified TLS connection').toBeGreaterThanOrEqual(100);
      },
    );

    for (const version of ['TLSv1', 'TLSv1.1'] as const) {
      test(
        `SEC-TLS-004 ${what} refuses a client that offers only ${version === 'TLSv1' ? 'TLS 1.0' : 'TLS 1.1'}`,
        requirement('SEC-TLS-004', needs(need)),
        async ({ target, rawHttp }, testInfo) => {
          requireHttps(target, testInfo, what, url(target));
          const modern = await tlsOutcome(rawHttp, url(target), 'TLSv1.2', 'TLSv1.3');
          expect(
            modern.kind,
            `setup: the address answers over TLS 1.2+ (${'error' in modern ? modern.error : 'answered'})`,
          ).toBe('answered');
          const old = await tlsOutcome(rawHttp, url(target), version, version);
          expect(old.kind, `setup: our client offered ${version} (${'error' in old ? old.error : ''})`).not.toBe(
            'not-offered',
          );
          expect(old.kind, `setup: the address is reachable (${'error' in old ? old.error : ''})`).not.toBe(
            'unreachable',
          );
          expect(old, `a handshake offering only ${version} is refused`).toMatchObject({ kind: 'refused' });
        },
      );
    }

    test(
      `SEC-TLS-004 ${what} accepts a TLS 1.2 handshake`,
      requirement('SEC-TLS-004', needs(need)),
      async ({ target, rawHttp }, testInfo) => {
        requireHttps(target, testInfo, what, url(target));
        const outcome = await tlsOutcome(rawHttp, url(target), 'TLSv1.2', 'TLSv1.2');
        expect(outcome, 'a client offering only TLS 1.2 gets an HTTP answer').toMatchObject({ kind: 'answered' });
      },
    );
  }

  test(
    'SEC-TLS-005 a token response of the US token endpoint carries Strict-Transport-Security',
    requirement('SEC-TLS-005', needs('us')),
    async ({ target, tokenClient }, testInfo) => {
      requireHttps(target, testInfo, 'the US token endpoint', target.tokenUrl('us'));
      const res = await tokenClient.clientCredentials({ region: 'us', client: 'usClient' });
      await expect(res, 'setup: a token is issued').toBeTokenIssued();
      await expect(res, 'Strict-Transport-Security with max-age').toSatisfy('SEC-TLS-005');
    },
  );

  test(
    'SEC-TLS-005 a token response of the EU token endpoint carries Strict-Transport-Security',
    requirement('SEC-TLS-005', needs('eu')),
    async ({ target, tokenClient }, testInfo) => {
      requireHttps(target, testInfo, 'the EU token endpoint', target.tokenUrl('eu'));
      const res = await tokenClient.clientCredentials({ region: 'eu', client: 'euClient' });
      await expect(res, 'setup: a token is issued').toBeTokenIssued();
      await expect(res, 'Strict-Transport-Security with max-age').toSatisfy('SEC-TLS-005');
    },
  );

  test(
    'SEC-TLS-005 a response of the protected API carries Strict-Transport-Security',
    requirement('SEC-TLS-005', needs('people')),
    async ({ target, api, wire }, testInfo) => {
      requireHttps(target, testInfo, 'the protected API', target.apiUrl('/'));
      const token = await wire.token();
      const res = await api.person('existing', { token });
      expect(res.status, `setup: the call succeeds — ${res.describe()}`).toBe(200);
      await expect(res, 'Strict-Transport-Security with max-age').toSatisfy('SEC-TLS-005');
    },
  );
});
