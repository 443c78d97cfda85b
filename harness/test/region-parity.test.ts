// Region parity, the pure comparison: synthetic US and EU answers, every rule that explains a
// difference (with its clause) and differences that stay unexplained.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  compareRegions,
  outcome,
  reduceAnswer,
  renderParity,
  tokenFormat,
  type ProbeAnswer,
  type RegionObservation,
} from '../parity/region-parity.ts';
import { declaredChoices } from '../parity/probe-regions.ts';

const jwt = (header: object) =>
  `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.c2ln`;
const token = (extra: Record<string, unknown> = {}, header: object = { alg: 'EdDSA', typ: 'at+jwt' }) =>
  reduceAnswer(200, JSON.stringify({ access_token: jwt(header), token_type: 'Bearer', expires_in: 3600, ...extra }));
const error = (code: string, status = 400): ProbeAnswer =>
  reduceAnswer(status, JSON.stringify({ error: code, error_description: 'x' }));

/** A conformant pair with the reference's choices (OI-6 ignored, OI-9 unsupported_grant_type). */
function pair(): { us: RegionObservation; eu: RegionObservation } {
  const common = {
    missingGrantType: error('invalid_request'),
    badClientSecret: error('invalid_client'),
    unsupportedGrant: error('unsupported_grant_type'),
  };
  return {
    us: {
      success: token(),
      ...common,
      unknownScope: token(),
      passwordGrant: token({ refresh_token: 'r', scope: 'email openid profile company' }),
    },
    eu: {
      success: token({ scope: 'empty_default' }),
      ...common,
      unknownScope: error('invalid_scope'),
      passwordGrant: error('unsupported_grant_type'),
    },
  };
}
const reference = { usClientCredentialsScope: 'ignored', euOtherGrants: 'unsupported_grant_type' };
const byAspect = (p: ReturnType<typeof compareRegions>, name: string) => p.aspects.find((a) => a.aspect === name);

void describe('region parity: reducing an answer', () => {
  void test('a token answer keeps field names, token_type, expires_in, scope and the token format, never the token', () => {
    const a = token({ scope: 'empty_default' });
    assert.deepEqual(a, {
      status: 200,
      fields: ['access_token', 'expires_in', 'scope', 'token_type'],
      tokenType: 'Bearer',
      expiresIn: '3600',
      scope: 'empty_default',
      tokenFormat: 'JWT (alg EdDSA, typ at+jwt)',
    });
    assert.ok(!JSON.stringify(a).includes('c2ln'), 'no token value');
    assert.equal(outcome(a), '200 token (scope "empty_default")');
    assert.equal(outcome(error('invalid_client', 401)), '401 invalid_client');
    assert.deepEqual(reduceAnswer(404, '<html>'), { status: 404 });
  });

  void test('token format: JWT header alg/typ, or opaque', () => {
    assert.equal(tokenFormat(jwt({ alg: 'RS256' })), 'JWT (alg RS256)');
    assert.equal(tokenFormat('2YotnFZFEjr1zCsicMWpAA'), 'opaque');
    assert.equal(tokenFormat('a.b.c'), 'opaque', 'three parts whose header is not JSON');
  });
});

void describe('region parity: the comparison', () => {
  void test('the reference behaviour: only explained differences, each with its clause', () => {
    const { us, eu } = pair();
    const p = compareRegions(us, eu, reference);
    assert.equal(p.counts.unexplained, 0, JSON.stringify(p.aspects.filter((a) => a.status === 'unexplained')));
    assert.deepEqual(
      p.aspects.filter((a) => a.status === 'explained').map((a) => a.aspect),
      ['success.fields', 'request.unknown_scope', 'request.password_grant'],
    );
    assert.match(byAspect(p, 'success.fields')!.clause!, /§2\.2/);
    assert.match(byAspect(p, 'request.unknown_scope')!.clause!, /OI-6 choice "ignored"/);
    assert.match(byAspect(p, 'request.password_grant')!.clause!, /§4 notes.*OI-9 choice "unsupported_grant_type"/);
    assert.equal(byAspect(p, 'success.expires_in')!.status, 'same');
    assert.equal(renderParity(p)[0], 'Region parity (US vs EU client_credentials): 7 same, 3 explained, 0 unexplained');
  });

  const cases: [string, (us: RegionObservation, eu: RegionObservation) => void, string][] = [
    [
      'a different expires_in',
      (_us, eu) => {
        eu.success = token({ scope: 'empty_default', expires_in: 7200 });
      },
      'success.expires_in',
    ],
    [
      'an opaque token in one region',
      (_us, eu) => {
        eu.success = { ...eu.success, tokenFormat: 'opaque' };
      },
      'success.token_format',
    ],
    [
      'another JWT alg',
      (us) => {
        us.success = token({}, { alg: 'RS256', typ: 'JWT' });
      },
      'success.token_format',
    ],
    [
      'token_type "bearer" in one region',
      (us) => {
        us.success = token({ token_type: 'bearer' });
      },
      'success.token_type',
    ],
    [
      'an extra field beyond the EU scope',
      (_us, eu) => {
        eu.success = token({ scope: 'empty_default', refresh_token: 'r' });
      },
      'success.fields',
    ],
    [
      'an EU scope other than empty_default',
      (_us, eu) => {
        eu.success = token({ scope: 'read' });
      },
      'success.fields',
    ],
    [
      'a scope in the US response',
      (us) => {
        us.success = token({ scope: 'empty_default' });
      },
      'success.fields',
    ],
    [
      '401 invalid_client in one region, 400 in the other',
      (_us, eu) => {
        eu.badClientSecret = error('invalid_client', 401);
      },
      'error.bad_client_secret',
    ],
    [
      'invalid_grant for a wrong secret',
      (us) => {
        us.badClientSecret = error('invalid_grant');
      },
      'error.bad_client_secret',
    ],
    [
      'a different error for a missing grant_type',
      (_us, eu) => {
        eu.missingGrantType = error('unsupported_grant_type');
      },
      'error.missing_grant_type',
    ],
    [
      'a different error for an unsupported grant',
      (us) => {
        us.unsupportedGrant = error('invalid_request');
      },
      'error.unsupported_grant_type',
    ],
    [
      'the EU endpoint ignoring an unknown scope',
      (_us, eu) => {
        eu.unknownScope = token({ scope: 'empty_default' });
      },
      'request.unknown_scope',
    ],
    [
      'the US endpoint refusing a scope while the target declared "ignored"',
      (us) => {
        us.unknownScope = error('invalid_scope');
      },
      'request.unknown_scope',
    ],
    [
      'the EU endpoint issuing password tokens while the target declared unsupported_grant_type',
      (_us, eu) => {
        eu.passwordGrant = token({ refresh_token: 'r', scope: 'email' });
      },
      'request.password_grant',
    ],
    [
      'a failing US client_credentials request',
      (us) => {
        us.success = error('invalid_client');
      },
      'success.status',
    ],
  ];
  for (const [name, change, aspectName] of cases) {
    void test(`unexplained: ${name}`, () => {
      const { us, eu } = pair();
      change(us, eu);
      const p = compareRegions(us, eu, reference);
      const a = byAspect(p, aspectName);
      assert.equal(a?.status, 'unexplained', JSON.stringify(p.aspects));
      assert.ok(a.note, 'an unexplained difference says what was expected');
      if (a.us === a.eu) assert.match(a.note, /^identical, but the regions should differ here/);
      assert.equal(p.counts.unexplained, 1, JSON.stringify(p.aspects.filter((x) => x.status === 'unexplained')));
      assert.ok(renderParity(p).some((l) => l.includes(`UNEXPLAINED ${aspectName}`)));
    });
  }

  void test('a target that declares the other choices: those answers are explained', () => {
    const { us, eu } = pair();
    us.unknownScope = error('invalid_scope');
    eu.passwordGrant = token({ refresh_token: 'r', scope: 'email' });
    const p = compareRegions(us, eu, { usClientCredentialsScope: 'invalid_scope', euOtherGrants: 'supported' });
    assert.equal(byAspect(p, 'request.unknown_scope')!.status, 'same', 'both refuse with invalid_scope');
    assert.equal(byAspect(p, 'request.password_grant')!.status, 'same', 'both issue tokens');
    assert.equal(p.counts.unexplained, 0);
    eu.passwordGrant = error('unauthorized_client');
    assert.equal(
      byAspect(
        compareRegions(us, eu, { usClientCredentialsScope: 'invalid_scope', euOtherGrants: 'unauthorized_client' }),
        'request.password_grant',
      )!.status,
      'explained',
    );
  });

  void test('without a user the password grant is not compared; a failed success request skips the success aspects', () => {
    const { us, eu } = pair();
    delete us.passwordGrant;
    assert.equal(byAspect(compareRegions(us, eu, reference), 'request.password_grant'), undefined);
    us.success = error('invalid_client');
    const p = compareRegions(us, eu, reference);
    assert.equal(byAspect(p, 'success.expires_in'), undefined);
  });

  void test("declared choices: the profile's, else the catalogue's reference choice", () => {
    assert.deepEqual(declaredChoices({}), reference);
    assert.deepEqual(declaredChoices({ euOtherGrants: 'supported' }), { ...reference, euOtherGrants: 'supported' });
  });
});

void describe('region parity under a declared request shaping', () => {
  void test('each region echoing the scope its client declares is explained by the shaping, not counted as a difference', () => {
    const { us, eu } = pair();
    us.success = token({ scope: 'people.read' });
    eu.success = token({ scope: 'people.read' });
    const shaped = compareRegions(us, eu, { ...reference, shapedScope: { us: 'people.read', eu: 'people.read' } });
    assert.equal(byAspect(shaped, 'success.fields')?.status, 'same');
    assert.equal(shaped.counts.unexplained, 0);
    eu.success = token({ scope: 'empty_default' });
    const usOnly = compareRegions(us, eu, { ...reference, shapedScope: { us: 'people.read' } });
    assert.equal(byAspect(usOnly, 'success.fields')?.status, 'same', 'the same fields, the scope value by declaration');
    assert.equal(usOnly.counts.unexplained, 0);
  });

  void test('a scope the profile did not declare stays unexplained, and so does one other than the declared', () => {
    const { us, eu } = pair();
    us.success = token({ scope: 'people.read' });
    assert.equal(byAspect(compareRegions(us, eu, reference), 'success.fields')?.status, 'unexplained');
    assert.equal(
      byAspect(compareRegions(us, eu, { ...reference, shapedScope: { us: 'people.write' } }), 'success.fields')?.status,
      'same',
      'identical field names: the value differs, which the scope rule of §2.2 does not judge here',
    );
    us.success = token({ scope: 'people.read', extra: 1 });
    assert.equal(
      byAspect(compareRegions(us, eu, { ...reference, shapedScope: { us: 'people.read' } }), 'success.fields')?.status,
      'unexplained',
      'a field beyond scope is a difference whatever the shaping',
    );
  });
});
