// Declared request shaping (credentials.clients.<name>.tokenParameters): the two forms of a
// declaration, what each grant gets from it, the clear one-line profile errors of a wrong one, and
// the reports listing it at their top.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { conformanceReportSchema, type ConformanceReport } from '../reporter/report.schema.ts';
import { renderSummary } from '../reporter/terminal-summary.ts';
import { renderTraceability } from '../reporter/traceability-html.ts';
import { validateProfile } from '../../core/profile/load-profile.ts';
import {
  declaredForGrant,
  declaredParameterPath,
  declaredShapings,
  describeShaping,
} from '../../core/profile/token-parameters.ts';
import { profileProblems } from './support/profile-problems.ts';

const withParameters = (tokenParameters: unknown, client = 'usClient') => ({
  name: 'okta-like',
  authUrlUs: 'https://auth.example.com',
  credentials: { clients: { [client]: { clientId: 'abc', clientSecret: { env: 'US_SECRET' }, tokenParameters } } },
});

const problems = profileProblems;

void describe('tokenParameters', () => {
  void test('{"scope": …} applies to every grant of the client', () => {
    const { profile } = validateProfile(withParameters({ scope: 'people.read', audience: 'api://people' }), 'p.json', {
      env: { US_SECRET: 's' },
    });
    const declared = profile.credentials.clients.usClient?.tokenParameters;
    for (const grant of ['client_credentials', 'password', 'refresh_token'] as const) {
      assert.deepEqual(
        declaredForGrant(declared, grant),
        [
          ['scope', 'people.read'],
          ['audience', 'api://people'],
        ],
        grant,
      );
    }
  });

  void test('the field of a declared parameter, as a blocked check names it: top-level or under its grant', () => {
    assert.equal(declaredParameterPath({ scope: 'a' }, 'password', 'scope'), 'tokenParameters.scope');
    assert.equal(
      declaredParameterPath({ password: { scope: 'a' } }, 'password', 'scope'),
      'tokenParameters.password.scope',
    );
    assert.equal(declaredParameterPath({ client_credentials: { scope: 'a' } }, 'password', 'scope'), undefined);
    assert.equal(declaredParameterPath({ audience: 'x' }, 'password', 'scope'), undefined);
    assert.equal(declaredParameterPath(undefined, 'password', 'scope'), undefined);
  });

  void test('a per-grant declaration applies to its grant only; an env reference is shown as $NAME in reports', () => {
    const raw = withParameters({
      client_credentials: { scope: 'people.read' },
      password: { scope: { env: 'PW_SCOPE' } },
    });
    const { profile } = validateProfile(raw, 'p.json', { env: { US_SECRET: 's', PW_SCOPE: 'openid' } });
    const declared = profile.credentials.clients.usClient?.tokenParameters;
    assert.deepEqual(declaredForGrant(declared, 'client_credentials'), [['scope', 'people.read']]);
    assert.deepEqual(declaredForGrant(declared, 'password'), [['scope', { env: 'PW_SCOPE' }]]);
    assert.deepEqual(declaredForGrant(declared, 'refresh_token'), []);
    assert.deepEqual(declaredShapings(profile.credentials.clients).map(describeShaping), [
      'usClient client_credentials: scope=people.read',
      'usClient password: scope=$PW_SCOPE',
    ]);
  });

  const cases: { name: string; raw: unknown; env?: NodeJS.ProcessEnv; expect: RegExp }[] = [
    {
      name: 'an unknown grant',
      raw: withParameters({ authorization_code: { scope: 'x' } }),
      expect:
        /^credentials\.clients\.usClient\.tokenParameters\.authorization_code: "authorization_code" is not a grant the suite sends/,
    },
    {
      name: 'both forms mixed',
      raw: withParameters({ scope: 'x', password: { scope: 'y' } }),
      expect: /tokenParameters\.scope: "scope" is not a grant the suite sends .* not both/,
    },
    {
      name: 'a grant with a value that is not an object of parameters',
      raw: withParameters({ client_credentials: 'scope=x' }),
      expect: /tokenParameters\.client_credentials: expected an object of form parameters/,
    },
    {
      name: 'a parameter the suite sets itself',
      raw: withParameters({ client_id: 'other' }),
      expect: /tokenParameters\.client_id: "client_id" is set by the suite itself/,
    },
    {
      name: 'a reserved parameter inside a grant',
      raw: withParameters({ password: { username: 'acme\\alice' } }),
      expect: /tokenParameters\.password\.username: "username" is set by the suite itself/,
    },
    {
      name: 'an unknown client',
      raw: withParameters({ scope: 'x' }, 'usClientX'),
      expect: /^credentials\.clients\.usClientX: unknown key "usClientX"/,
    },
    {
      name: 'an unset environment reference',
      raw: withParameters({ scope: { env: 'MISSING_SCOPE' } }),
      expect: /^credentials\.clients\.usClient\.tokenParameters: scope: environment variable MISSING_SCOPE is not set$/,
    },
  ];
  for (const c of cases) {
    void test(`profile error: ${c.name}`, () => {
      const found = problems(c.raw, c.env);
      assert.equal(found.length, 1, `exactly one line — got ${JSON.stringify(found)}`);
      assert.match(found[0]!, c.expect);
    });
  }
});

void describe('the declared shaping in the reports', () => {
  const fixture = JSON.parse(
    readFileSync(join(import.meta.dirname, 'fixtures', 'gate', 'report-planted-fail.json'), 'utf8'),
  ) as ConformanceReport;
  const shaped: ConformanceReport = {
    ...fixture,
    target: {
      ...fixture.target,
      requestShaping: [{ client: 'usClient', grant: 'client_credentials', parameters: { scope: 'people.read' } }],
    },
  };

  void test('conformance.json carries it (the report schema accepts it), the terminal summary lists it under the title, the page before the attention list', () => {
    assert.ok(conformanceReportSchema.safeParse(shaped).success, 'the report schema accepts target.requestShaping');
    const lines = renderSummary(shaped).split('\n');
    const title = lines.findIndex((l) => l.startsWith('Conformance of '));
    assert.match(lines[title + 1]!, /^Declared request shaping \(tokenParameters; not sent by the spec-shaped checks/);
    assert.equal(lines[title + 2], '  usClient client_credentials: scope=people.read');
    const html = renderTraceability(shaped);
    const at = html.indexOf('<h2 id="request-shaping">Declared request shaping</h2>');
    assert.ok(at > 0 && at < html.indexOf('<h2 id="attention">'), 'the shaping comes before the attention list');
    assert.ok(html.includes('<code>usClient client_credentials: scope=people.read</code>'));
  });

  void test('a report without declared shaping says nothing about it', () => {
    assert.ok(!renderSummary(fixture).includes('Declared request shaping'));
    assert.ok(!renderTraceability(fixture).includes('request-shaping'));
  });
});
