// Gateway codes of request syntax (spec §7.2 "Malformed request syntax" and 000-1005): headers
// (000-2100, 000-2102), the query string of the profile's query route (000-2110..2112) and the
// body of its JSON route (000-1005, 000-2101, 000-2120..2122). Triggers and statuses: OI-14.
//
// The profile's routes are `{ method, path }`. A query route may carry a valid sample query in its
// path (`/v1/…/search?name=value&count=5`): the check that needs to know a typed parameter uses it,
// and SKIPs without it. (A repeated parameter, the other 000-2110 trigger, needs such a sample too;
// it is left out so that the bad percent-escape checks decide ERR-GW-2110.)
import { expect, needs, requirement, test } from '../../fixtures/index.ts';
import type { ApiClient, Target } from '../../fixtures/index.ts';
import { gatewayToken, routePath, wireCall } from './support/gateway-calls.ts';

function jsonRoute(target: Target): { method: string; path: string } {
  const r = target.profile.resources.jsonBodyRoute!;
  return { method: r.method, path: routePath(target, r) };
}

function queryRoute(target: Target): { method: string; path: string; sample: [string, string][] } {
  const r = target.profile.resources.queryRoute!;
  const full = routePath(target, r);
  const at = full.indexOf('?');
  const path = at < 0 ? full : full.slice(0, at);
  const sample = at < 0 ? [] : [...new URLSearchParams(full.slice(at + 1))];
  return { method: r.method, path, sample };
}

const query = (pairs: [string, string][]) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

async function callJsonRoute(api: ApiClient, target: Target, token: string, body: string, contentType: string) {
  const route = jsonRoute(target);
  return api.request(route.path, { method: route.method, token, headers: [['content-type', contentType]], body });
}

test.describe('gateway: header syntax', () => {
  for (const accept of ['application', 'text/html;q=abc;;/']) {
    test(`ERR-GW-2100 a protected call whose Accept header "${accept}" is not a media-range list gets 000-2100`,
      requirement('ERR-GW-2100', needs('people')),
      async ({ target, tokenClient, api }, testInfo) => {
        const token = await gatewayToken(target, tokenClient, testInfo);
        await expect(await api.person('existing', { token, accept })).toBeGatewayError('000-2100');
      });
  }

  test('ERR-GW-2102 a protected call with two Authorization headers gets 000-2102',
    requirement('ERR-GW-2102', needs('people')),
    async ({ target, tokenClient, rawHttp, redactor }, testInfo) => {
      const token = await gatewayToken(target, tokenClient, testInfo);
      const res = await wireCall(rawHttp, target, (t) => redactor.redact(t), {
        requestTarget: `/v1/people/er/${encodeURIComponent(target.profile.resources.people!.existing)}`,
        headers: [['Authorization', `Bearer ${token}`], ['Accept', 'application/json'], ['Authorization', `Bearer ${token}`]],
      });
      await expect(res).toBeGatewayError('000-2102');
    });

  test('ERR-GW-2102 a protected call whose Accept header excludes application/json gets 000-2102',
    requirement('ERR-GW-2102', needs('people')),
    async ({ target, tokenClient, api }, testInfo) => {
      const token = await gatewayToken(target, tokenClient, testInfo);
      await expect(await api.person('existing', { token, accept: 'text/html' })).toBeGatewayError('000-2102');
    });
});

test.describe('gateway: query string', () => {
  test('ERR-GW-2110 a protected call whose query string has a bad percent-escape gets 000-2110',
    requirement('ERR-GW-2110', needs('people')),
    async ({ target, tokenClient, api }, testInfo) => {
      const token = await gatewayToken(target, tokenClient, testInfo);
      const id = encodeURIComponent(target.profile.resources.people!.existing);
      await expect(await api.get(`/v1/people/er/${id}?conformance=%zz`, { token })).toBeGatewayError('000-2110');
    });

  test('ERR-GW-2110 a call to the query route whose query string has a bad percent-escape gets 000-2110',
    requirement('ERR-GW-2110', needs('fixture:query-route', 'people')),
    async ({ target, tokenClient, api }, testInfo) => {
      const token = await gatewayToken(target, tokenClient, testInfo);
      const route = queryRoute(target);
      const pairs = route.sample.length > 0 ? query(route.sample.slice(1)) : '';
      const name = route.sample[0]?.[0] ?? 'conformance';
      const path = `${route.path}?${encodeURIComponent(name)}=%zz${pairs ? `&${pairs}` : ''}`;
      await expect(await api.request(path, { method: route.method, token })).toBeGatewayError('000-2110');
    });

  test('ERR-GW-2111 a call to the query route without its required query parameter gets 000-2111',
    requirement('ERR-GW-2111', needs('people')),
    async ({ target, tokenClient, api }, testInfo) => {
      const token = await gatewayToken(target, tokenClient, testInfo);
      const route = queryRoute(target);
      await expect(await api.request(route.path, { method: route.method, token })).toBeGatewayError('000-2111');
    });

  test('ERR-GW-2112 a call to the query route with a numeric parameter given a non-number gets 000-2112',
    requirement('ERR-GW-2112', needs('people')),
    async ({ target, tokenClient, api }, testInfo) => {
      const route = queryRoute(target);
      const typed = route.sample.findIndex(([, v]) => /^-?\d+$/.test(v));
      test.skip(typed < 0, 'profile\'s resources.queryRoute.path has no sample query with a numeric parameter (…?name=value&count=5) to give a wrong type');
      const token = await gatewayToken(target, tokenClient, testInfo);
      expect((await api.request(`${route.path}?${query(route.sample)}`, { method: route.method, token })).status, 'setup: the sample query succeeds').toBe(200);
      const wrong = route.sample.map(([k, v], i): [string, string] => [k, i === typed ? 'not-a-number' : v]);
      await expect(await api.request(`${route.path}?${query(wrong)}`, { method: route.method, token })).toBeGatewayError('000-2112');
    });
});

test.describe('gateway: request body of the JSON route', () => {
  test('ERR-GW-1005 a call to the JSON route with a text/plain body gets 000-1005',
    requirement('ERR-GW-1005', needs('people')),
    async ({ target, tokenClient, api }, testInfo) => {
      const token = await gatewayToken(target, tokenClient, testInfo);
      await expect(await callJsonRoute(api, target, token, 'conformance note', 'text/plain')).toBeGatewayError('000-1005');
    });

  test('ERR-GW-2101 a call to the JSON route with a body but no Content-Type header gets 000-2101',
    requirement('ERR-GW-2101', needs('people')),
    async ({ target, tokenClient, rawHttp, redactor }, testInfo) => {
      const token = await gatewayToken(target, tokenClient, testInfo);
      const route = jsonRoute(target);
      const res = await wireCall(rawHttp, target, (t) => redactor.redact(t), {
        method: route.method,
        requestTarget: route.path,
        headers: [['Authorization', `Bearer ${token}`], ['Accept', 'application/json']],
        body: '{}',
      });
      await expect(res).toBeGatewayError('000-2101');
    });

  for (const [what, body] of [['truncated JSON', '{"conformance": '], ['a JSON text that is not JSON at all', 'conformance=1']]) {
    test(`ERR-GW-2120 a call to the JSON route whose body is ${what} gets 000-2120`,
      requirement('ERR-GW-2120', needs('people')),
      async ({ target, tokenClient, api }, testInfo) => {
        const token = await gatewayToken(target, tokenClient, testInfo);
        await expect(await callJsonRoute(api, target, token, body!, 'application/json')).toBeGatewayError('000-2120');
      });
  }

  test('ERR-GW-2121 a call to the JSON route whose body is an object without members gets 000-2121',
    requirement('ERR-GW-2121', needs('people')),
    async ({ target, tokenClient, api }, testInfo) => {
      const token = await gatewayToken(target, tokenClient, testInfo);
      await expect(await callJsonRoute(api, target, token, '{}', 'application/json')).toBeGatewayError('000-2121');
    });

  test('ERR-GW-2122 a call to the JSON route whose body has a member of the wrong type gets 000-2122',
    requirement('ERR-GW-2122', needs('people')),
    () => {
      // The profile's jsonBodyRoute names no member (no sample body), so no member can be given a
      // wrong type without knowing the target. Missing fixture feature: resources.jsonBodyRoute.sampleBody.
      test.skip(true, 'profile\'s resources.jsonBodyRoute gives no sample body naming a member to give a wrong type');
    });
});
