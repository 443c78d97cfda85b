// Gateway codes of the path: 000-1010 (a malformed URI path), 000-1020 (missing or invalid version,
// spec §9), 000-4000 (a path under /v1/ that is not exposed). Malformed paths are written to the
// socket as bytes: an HTTP client would normalize dot-segments away. Which malformed paths get
// 000-1010 is the target's choice (OI-14 `triggers`): each check names its trigger.
import { expect, needs, requirement, test } from '../../fixtures/index.ts';
import { pickTrigger } from '../../fixtures/support/gateway/gateway-trigger.ts';

test.describe('gateway: URI path (000-1010)', () => {
  const malformed: [string, string, (id: string) => string][] = [
    ['a bad percent-escape (%zz)', 'bad-percent-escape', (id) => `/v1/people/er/${id}%zz`],
    ['an encoded NUL (%00)', 'encoded-nul', (id) => `/v1/people/er/${id}%00`],
    ['a dot-segment (..)', 'dot-segment', (id) => `/v1/people/../people/er/${id}`],
    ['a dot-segment (.)', 'single-dot-segment', (id) => `/v1/people/./er/${id}`],
    ['a percent-encoded dot-segment (%2e%2e)', 'encoded-dot-segment', (id) => `/v1/people/%2e%2e/people/er/${id}`],
  ];
  for (const [what, trigger, path] of malformed) {
    test(
      `ERR-GW-1010 a protected call with ${what} in its path gets 000-1010`,
      requirement('ERR-GW-1010', needs('people')),
      async ({ target, wire }, testInfo) => {
        const picked = pickTrigger(target, testInfo, '000-1010', trigger);
        const token = await wire.token();
        const res = await wire.send({
          requestTarget: path(encodeURIComponent(target.profile.resources.people!.existing)),
          headers: [
            ['Authorization', `Bearer ${token}`],
            ['Accept', 'application/json'],
          ],
        });
        await picked.answeredWithCode(res);
      },
    );
  }
});

test.describe('gateway: version segment (000-1020, spec §9)', () => {
  const versions: [string, (id: string) => string][] = [
    ['no version segment', (id) => `/people/er/${id}`],
    ['version v0', (id) => `/v0/people/er/${id}`],
    ['version v2', (id) => `/v2/people/er/${id}`],
    ['version vx', (id) => `/vx/people/er/${id}`],
  ];
  for (const [what, path] of versions) {
    test(
      `ERR-GW-1020 a protected call with ${what} gets 000-1020`,
      requirement('ERR-GW-1020', needs('people')),
      async ({ target, api, control, wire }) => {
        const token = await wire.token();
        const id = encodeURIComponent(target.profile.resources.people!.existing);
        const plain = await api.get(`/v1/people/er/${id}`, { token });
        control.answered(plain.status === 200, plain.describe(), {
          what: 'the same call under /v1/ succeeds',
          by: 'BEARER-001',
        });
        await expect(await api.get(path(id), { token })).toBeGatewayError('000-1020');
      },
    );
  }
});

test.describe('gateway: exposed paths (000-4000)', () => {
  test(
    'ERR-GW-4000 a protected call to a path under /v1/ that the gateway does not expose gets 000-4000',
    requirement('ERR-GW-4000'),
    async ({ api, wire }) => {
      const token = await wire.token();
      await expect(await api.get('/v1/conformance-not-exposed/resource', { token })).toBeGatewayError('000-4000');
    },
  );
});
