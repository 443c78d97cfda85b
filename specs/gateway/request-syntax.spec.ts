// Gateway codes of request syntax (spec §7.2 "Malformed request syntax" and 000-1005): headers
// (000-2100, 000-2102), the query string of the profile's query route (000-2110..2112) and the
// body of its JSON route (000-1005, 000-2101, 000-2120..2122). Triggers and statuses: OI-14; each
// check names the trigger it picks (`triggers`), so a target can declare its own.
//
// The profile's routes are `{ method, path }`, plus samples (profiles/README.md): the query route's
// `query` (a query it accepts), `required` (ERR-GW-2111 leaves the first out) and `typed`
// (ERR-GW-2112 gives the first a value of another type); the JSON route's `sampleBody` (a body it
// accepts, only required members: ERR-GW-2121 leaves the first member out, ERR-GW-2122 gives it
// a value of another JSON type). A check whose sample the profile lacks SKIPs with the reason.
// The JSON route is called with the usClient token (that client must be allowed to call it).
import { expect, needs, requirement, test, type ApiClient, type Target } from '../../fixtures/index.ts';
import { pickTrigger } from '../../fixtures/support/gateway/gateway-trigger.ts';
import { routePath } from '../../fixtures/support/gateway/route-path.ts';

function jsonRoute(target: Target): { method: string; path: string; sampleBody?: Record<string, unknown> } {
  const r = target.profile.resources.jsonBodyRoute!;
  return { method: r.method, path: routePath(target, r), ...(r.sampleBody ? { sampleBody: r.sampleBody } : {}) };
}

function queryRoute(target: Target) {
  const r = target.profile.resources.queryRoute!;
  return {
    method: r.method,
    path: routePath(target, r),
    sample: Object.entries(r.query ?? {}),
    required: r.required ?? [],
    typed: Object.entries(r.typed ?? {}),
  };
}

const query = (pairs: [string, string][]) =>
  pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
const withQuery = (path: string, pairs: [string, string][]) => (pairs.length > 0 ? `${path}?${query(pairs)}` : path);

/** A value of another type than the declared one, as a query parameter carries it. */
const wrongQueryValue: Record<string, string> = {
  integer: 'not-a-number',
  number: 'not-a-number',
  boolean: 'not-a-boolean',
};

/** A JSON value of another type than `value`'s. */
function wrongJsonValue(value: unknown): unknown {
  if (typeof value === 'string') return 12345;
  if (typeof value === 'number') return 'not-a-number';
  if (typeof value === 'boolean') return 'not-a-boolean';
  if (Array.isArray(value)) return 'not-an-array';
  if (value === null) return 12345;
  return 'not-an-object';
}

async function callJsonRoute(api: ApiClient, target: Target, token: string, body: string, contentType: string) {
  const route = jsonRoute(target);
  return api.request(route.path, { method: route.method, token, headers: [['content-type', contentType]], body });
}

test.describe('gateway: header syntax', () => {
  for (const accept of ['application', 'text/html;q=abc;;/']) {
    test(
      `ERR-GW-2100 a protected call whose Accept header "${accept}" is not a media-range list gets 000-2100`,
      requirement('ERR-GW-2100', needs('people')),
      async ({ target, api, wire }, testInfo) => {
        const picked = pickTrigger(target, testInfo, '000-2100', 'accept-not-media-range');
        const token = await wire.token();
        await picked.answeredWithCode(await api.person('existing', { token, accept }));
      },
    );
  }

  test(
    'ERR-GW-2102 a protected call with two Authorization headers gets 000-2102',
    requirement('ERR-GW-2102', needs('people')),
    async ({ target, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-2102', 'two-authorization-headers');
      const token = await wire.token();
      const res = await wire.send({
        requestTarget: `/v1/people/er/${encodeURIComponent(target.profile.resources.people!.existing)}`,
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Accept', 'application/json'],
          ['Authorization', `Bearer ${token}`],
        ],
      });
      await picked.answeredWithCode(res);
    },
  );

  test(
    'ERR-GW-2102 a protected call whose Accept header excludes application/json gets 000-2102',
    requirement('ERR-GW-2102', needs('people')),
    async ({ target, api, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-2102', 'accept-excludes-json');
      const token = await wire.token();
      await picked.answeredWithCode(await api.person('existing', { token, accept: 'text/html' }));
    },
  );
});

test.describe('gateway: query string', () => {
  test(
    'ERR-GW-2110 a protected call whose query string has a bad percent-escape gets 000-2110',
    requirement('ERR-GW-2110', needs('people')),
    async ({ target, api, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-2110', 'query-bad-percent-escape');
      const token = await wire.token();
      const id = encodeURIComponent(target.profile.resources.people!.existing);
      await picked.answeredWithCode(await api.get(`/v1/people/er/${id}?conformance=%zz`, { token }));
    },
  );

  test(
    'ERR-GW-2110 a call to the query route whose query string has a bad percent-escape gets 000-2110',
    requirement('ERR-GW-2110', needs('resource:queryRoute', 'people')),
    async ({ target, api, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-2110', 'query-bad-percent-escape');
      const token = await wire.token();
      const route = queryRoute(target);
      const pairs = route.sample.length > 0 ? query(route.sample.slice(1)) : '';
      const name = route.sample[0]?.[0] ?? 'conformance';
      const path = `${route.path}?${encodeURIComponent(name)}=%zz${pairs ? `&${pairs}` : ''}`;
      await picked.answeredWithCode(await api.request(path, { method: route.method, token }));
    },
  );

  test(
    'ERR-GW-2111 a call to the query route without its required query parameter gets 000-2111',
    requirement('ERR-GW-2111', needs('people')),
    async ({ target, api, wire }, testInfo) => {
      const route = queryRoute(target);
      const missing = route.required[0];
      test.skip(
        missing === undefined,
        "profile's resources.queryRoute has no sample query naming a required parameter (query, required)",
      );
      const picked = pickTrigger(target, testInfo, '000-2111', 'missing-required-query-parameter');
      const token = await wire.token();
      const sample = await api.request(withQuery(route.path, route.sample), { method: route.method, token });
      expect(sample.status, `setup: the sample query is accepted — ${sample.describe()}`).toBe(200);
      const without = route.sample.filter(([k]) => k !== missing);
      await picked.answeredWithCode(
        await api.request(withQuery(route.path, without), { method: route.method, token }),
        `without the required parameter ${missing}`,
      );
    },
  );

  test(
    'ERR-GW-2112 a call to the query route with a typed parameter given a value of another type gets 000-2112',
    requirement('ERR-GW-2112', needs('people')),
    async ({ target, api, wire }, testInfo) => {
      const route = queryRoute(target);
      const typed = route.typed[0];
      test.skip(
        typed === undefined,
        "profile's resources.queryRoute has no sample query naming a typed parameter (query, typed)",
      );
      const [name, type] = typed!;
      const picked = pickTrigger(target, testInfo, '000-2112', 'wrong-type-query-parameter');
      const token = await wire.token();
      const sample = await api.request(withQuery(route.path, route.sample), { method: route.method, token });
      expect(sample.status, `setup: the sample query is accepted — ${sample.describe()}`).toBe(200);
      const wrong = route.sample.map(([k, v]): [string, string] => [k, k === name ? wrongQueryValue[type]! : v]);
      await picked.answeredWithCode(
        await api.request(withQuery(route.path, wrong), { method: route.method, token }),
        `${name} (${type}) given "${wrongQueryValue[type]}"`,
      );
    },
  );
});

test.describe('gateway: request body of the JSON route', () => {
  test(
    'ERR-GW-1005 a call to the JSON route with a text/plain body gets 000-1005',
    requirement('ERR-GW-1005', needs('people')),
    async ({ target, api, wire }) => {
      const token = await wire.token();
      await expect(await callJsonRoute(api, target, token, 'conformance note', 'text/plain')).toBeGatewayError(
        '000-1005',
      );
    },
  );

  test(
    'ERR-GW-2101 a call to the JSON route with a body but no Content-Type header gets 000-2101',
    requirement('ERR-GW-2101', needs('people')),
    async ({ target, wire }, testInfo) => {
      const picked = pickTrigger(target, testInfo, '000-2101', 'body-without-content-type');
      const token = await wire.token();
      const route = jsonRoute(target);
      const res = await wire.send({
        method: route.method,
        requestTarget: route.path,
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Accept', 'application/json'],
        ],
        body: '{}',
      });
      await picked.answeredWithCode(res);
    },
  );

  for (const [what, trigger, body] of [
    ['truncated JSON', 'truncated-json', '{"conformance": '],
    ['a JSON text that is not JSON at all', 'not-json', 'conformance=1'],
  ]) {
    test(
      `ERR-GW-2120 a call to the JSON route whose body is ${what} gets 000-2120`,
      requirement('ERR-GW-2120', needs('people')),
      async ({ target, api, wire }, testInfo) => {
        const picked = pickTrigger(target, testInfo, '000-2120', trigger!);
        const token = await wire.token();
        await picked.answeredWithCode(await callJsonRoute(api, target, token, body!, 'application/json'));
      },
    );
  }

  test(
    'ERR-GW-2121 a call to the JSON route whose body lacks a required member gets 000-2121',
    requirement('ERR-GW-2121', needs('people')),
    async ({ target, api, wire }, testInfo) => {
      const route = jsonRoute(target);
      test.skip(!route.sampleBody, "profile's resources.jsonBodyRoute has no sampleBody naming a required member");
      const picked = pickTrigger(target, testInfo, '000-2121', 'missing-required-member');
      const [member] = Object.keys(route.sampleBody!);
      const token = await wire.token();
      const sample = await callJsonRoute(api, target, token, JSON.stringify(route.sampleBody), 'application/json');
      expect(
        sample.status >= 200 && sample.status < 300,
        `setup: the sample body is accepted — ${sample.describe()}`,
      ).toBe(true);
      const without = Object.fromEntries(Object.entries(route.sampleBody!).filter(([k]) => k !== member));
      await picked.answeredWithCode(
        await callJsonRoute(api, target, token, JSON.stringify(without), 'application/json'),
        `without the required member ${member}`,
      );
    },
  );

  test(
    'ERR-GW-2122 a call to the JSON route whose body has a member of the wrong type gets 000-2122',
    requirement('ERR-GW-2122', needs('people')),
    async ({ target, api, wire }, testInfo) => {
      const route = jsonRoute(target);
      test.skip(
        !route.sampleBody,
        "profile's resources.jsonBodyRoute has no sampleBody naming a member to give a wrong type",
      );
      const picked = pickTrigger(target, testInfo, '000-2122', 'wrong-type-member');
      const [member] = Object.keys(route.sampleBody!);
      const token = await wire.token();
      const sample = await callJsonRoute(api, target, token, JSON.stringify(route.sampleBody), 'application/json');
      expect(
        sample.status >= 200 && sample.status < 300,
        `setup: the sample body is accepted — ${sample.describe()}`,
      ).toBe(true);
      const wrong = { ...route.sampleBody, [member!]: wrongJsonValue(route.sampleBody![member!]) };
      await picked.answeredWithCode(
        await callJsonRoute(api, target, token, JSON.stringify(wrong), 'application/json'),
        `${member} given a value of another JSON type`,
      );
    },
  );
});
