// Every property check runs under an undeclared choice: for each spec of specs/properties/, some
// assumption fault (an interpretation left undeclared, its breaks required to read WARN) takes that
// property's checks (`withProperties`, selected by a requirement the property cites). The fault run
// then holds the property to "no FAIL on a choice the profile did not declare": a property that
// FAILs the requirement there is a false alarm, one that reads WARN detects it (judge()).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { interpretationById, requirementById } from '../../requirements/index.ts';
import type { Fault } from '../fault.ts';
import { faults } from '../faults/index.ts';
import { grepFor } from '../run/fault-selection.ts';

const propertiesDir = join(repoRoot, 'specs', 'properties');
const propertySpecs = readdirSync(propertiesDir).filter((f) => f.endsWith('.spec.ts'));

const quotedIds = (text: string) => [
  ...new Set([...text.matchAll(/'([A-Z]+(?:-[A-Z0-9]+)*-\d{3,4})'/g)].map((m) => m[1]!)),
];

/**
 * The requirement IDs each property check of a spec cites: the quoted IDs of its requirement(…) call
 * and of the `const` lists it spreads; a call whose IDs are built at run time (per region) cites
 * every ID the spec names.
 */
function checksOf(spec: string): string[][] {
  const text = readFileSync(join(propertiesDir, spec), 'utf8');
  const lists = new Map(
    [...text.matchAll(/const (\w+) = \[([\s\S]*?)\](?: as const)?;/g)].map((m) => [m[1]!, quotedIds(m[2]!)]),
  );
  return [...text.matchAll(/requirement\(([\s\S]*?)\{\s*tag:/g)].map((m) => {
    const args = m[1]!;
    const ids = [...quotedIds(args), ...[...args.matchAll(/\.\.\.(\w+)/g)].flatMap((s) => lists.get(s[1]!) ?? [])];
    return ids.length > 0 ? [...new Set(ids)] : quotedIds(text);
  });
}

const assumptionFaults = faults.filter(
  (f) => f.breaksAs === 'WARN' && (f.undeclare ?? []).length > 0 && f.withProperties,
);

/** Whether the fault's CI grep takes a property check citing these requirements (its `@property-` tag, its `@<ID>` tags). */
function takes(fault: Fault, cited: string[]): boolean {
  const grep = new RegExp(grepFor(fault));
  return cited.some((id) => grep.test(`property check @property-x @${id}`));
}

void describe('an undeclared choice under every property', () => {
  void test('the property specs are the four of the suite', () => {
    assert.deepEqual(propertySpecs.sort(), [
      'gateway-input.spec.ts',
      'refresh-concurrency.spec.ts',
      'token-endpoint-input.spec.ts',
      'token-lifecycle.spec.ts',
    ]);
  });

  for (const spec of propertySpecs) {
    void test(`every property check of ${spec} runs under an assumption fault`, () => {
      const checks = checksOf(spec);
      assert.ok(checks.length > 0, `${spec}: no requirement(…) call with a tag found`);
      for (const cited of checks) {
        assert.ok(cited.length > 0, `${spec} cites no requirement`);
        assert.ok(
          assumptionFaults.some((f) => takes(f, cited)),
          `no fault with undeclare, breaksAs 'WARN' and withProperties takes the check of ${spec} citing ${cited.join(', ')}`,
        );
      }
    });
  }

  void test('the property checks found per spec', () => {
    assert.deepEqual(Object.fromEntries(propertySpecs.map((spec) => [spec, checksOf(spec).length])), {
      'gateway-input.spec.ts': 1,
      'refresh-concurrency.spec.ts': 1,
      'token-endpoint-input.spec.ts': 1,
      'token-lifecycle.spec.ts': 3,
    });
  });

  void test('each assumption fault leaves undeclared the interpretation its breaks read', () => {
    for (const f of assumptionFaults) {
      for (const id of f.breaks) {
        const oi = requirementById(id).interpretation;
        assert.ok(oi, `${f.id}: ${id} depends on no interpretation`);
        assert.ok(
          f.undeclare!.includes(interpretationById(oi).key),
          `${f.id}: ${id} reads ${oi} (${interpretationById(oi).key}), which the fault leaves declared`,
        );
      }
    }
  });
});
