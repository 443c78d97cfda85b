// OI-14 gatewayCodes as the checks read it (fixtures/gateway-codes.ts, Target.gatewayCodes): a
// partly declared object keeps the reference choice for the rest; a code declared not produced
// gives the quoted declaration, and only then.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { codeOfRequirement } from '../../fixtures/gateway-codes.ts';
import { Target } from '../../fixtures/target.ts';
import { buildProfileSchema } from '../profile/profile.schema.ts';

function targetWith(interpretations: Record<string, unknown>): Target {
  const profile = buildProfileSchema().parse({ name: 'x', local: true, authUrlUs: 'https://127.0.0.1:1', interpretations });
  return new Target(profile, {});
}

void describe('gateway codes (OI-14)', () => {
  void test('without a declaration the reference choice applies: 000-1200 alone is not produced', () => {
    const target = targetWith({});
    assert.deepEqual(target.gatewayCodes().conditions, { nonBearerScheme: '000-1201', unknownToken: '000-1202', perSecondLimit: '000-2001' });
    assert.match(target.gatewayCodeNotProduced('000-1200') ?? '', /^the reference interpretation has .*"notProduced": \["000-1200"\].*never sends 000-1200/);
    assert.equal(target.gatewayCodeNotProduced('000-1000'), undefined);
  });

  void test('a partial declaration keeps the reference choice for the members it leaves out', () => {
    const target = targetWith({ gatewayCodes: { conditions: { unknownToken: '000-1205' }, statuses: { '000-1202': 403 } } });
    const codes = target.gatewayCodes();
    assert.deepEqual(codes.conditions, { nonBearerScheme: '000-1201', unknownToken: '000-1205', perSecondLimit: '000-2001' });
    assert.equal(codes.matching, 'exact');
    assert.equal(codes.statuses['000-1202'], 403);
    assert.deepEqual(codes.notProduced, ['000-1200']);
  });

  void test('a declared notProduced replaces the reference list and is quoted as the profile\'s', () => {
    const target = targetWith({ gatewayCodes: { notProduced: ['000-1000', '000-2110'] } });
    assert.equal(target.gatewayCodeNotProduced('000-1200'), undefined, 'the declared list replaces ["000-1200"]');
    const reason = target.gatewayCodeNotProduced('000-2110');
    assert.equal(reason, 'the profile declares "interpretations": { "gatewayCodes": { "notProduced": ["000-1000","000-2110"] } } — the target never sends 000-2110 (OI-14)');
  });

  void test('a requirement ID names its code; ERR-GW-GEN and other IDs name none', () => {
    assert.equal(codeOfRequirement('ERR-GW-1202'), '000-1202');
    assert.equal(codeOfRequirement('ERR-GW-GEN-001'), undefined);
    assert.equal(codeOfRequirement('BEARER-002'), undefined);
  });
});
