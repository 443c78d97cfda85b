// The requirement catalogue against its schema and against the things it must cover.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { gatewayErrorCodes } from '../../schemas/gateway-error-codes.ts';
import { createAjv, tokenErrorCodes, validate } from '../../schemas/index.ts';
import {
  catalogueFile,
  interpretationById,
  interpretations,
  interpretationsFile,
  requirementAreas,
  requirementById,
  requirements,
} from '../index.ts';

const idPattern = /^[A-Z]+(-[A-Z]+)*-[0-9]{3,4}$/;

void describe('requirement catalogue', () => {
  void test('requirements.json and interpretations.json are valid against their schemas', () => {
    for (const [id, file] of [
      ['requirement-catalogue', catalogueFile],
      ['interpretation-catalogue', interpretationsFile],
    ] as const) {
      const result = validate(id, JSON.parse(readFileSync(file, 'utf8')));
      assert.ok(result.valid, result.valid ? '' : result.text);
    }
  });

  void test('IDs are well formed and unique', () => {
    const seen = new Set<string>();
    for (const { id } of requirements) {
      assert.match(id, idPattern);
      assert.ok(!seen.has(id), `duplicate ID ${id}`);
      seen.add(id);
    }
  });

  void test('no two requirements make the same statement', () => {
    const seen = new Map<string, string>();
    for (const { id, statement } of requirements) {
      const key = statement.toLowerCase();
      assert.ok(!seen.has(key), `${id} repeats ${seen.get(key)}`);
      seen.set(key, id);
    }
  });

  void test('each statement is one sentence', () => {
    // A period followed by a space and a capital starts a second sentence.
    for (const { id, statement } of requirements)
      assert.doesNotMatch(statement, /\.\s+[A-Z]/, `${id} has more than one sentence`);
  });

  void test('every ERR-GW requirement is ERR-GW-GEN-nnn or names a code of the §7.2 table', () => {
    const codes = new Set<string>(gatewayErrorCodes);
    for (const { id, area } of requirements.filter((r) => r.id.startsWith('ERR-GW-'))) {
      assert.equal(area, 'gateway', `${id} is not in the gateway area`);
      if (!id.startsWith('ERR-GW-GEN-'))
        assert.ok(codes.has(`000-${id.slice('ERR-GW-'.length)}`), `${id} names no gateway code`);
    }
  });

  void test('every gateway code of gateway-error-codes.ts has its ERR-GW requirement, whose statement cites the code', () => {
    for (const code of gatewayErrorCodes) {
      const requirement = requirementById(`ERR-GW-${code.slice(4)}`);
      assert.ok(requirement.statement.includes(code), `ERR-GW-${code.slice(4)} does not cite ${code}`);
    }
  });

  void test('000-1200 is an INTERPRETATION that is never required', () => {
    const requirement = requirementById('ERR-GW-1200');
    assert.equal(requirement.level, 'INTERPRETATION');
    assert.match(requirement.statement, /never required/);
  });

  void test('every area has requirements', () => {
    for (const area of requirementAreas)
      assert.ok(
        requirements.some((r) => r.area === area),
        `area ${area} is empty`,
      );
  });

  void test('every interpretation cited exists, and every INTERPRETATION requirement cites one', () => {
    for (const requirement of requirements) {
      if (requirement.level === 'INTERPRETATION')
        assert.ok(requirement.interpretation, `${requirement.id} cites no interpretation`);
      if (requirement.interpretation)
        assert.doesNotThrow(
          () => interpretationById(requirement.interpretation as string),
          `${requirement.id}: ${requirement.interpretation}`,
        );
    }
  });

  void test('every interpretation is cited by a requirement (no key a profile could set to no effect)', () => {
    for (const { id } of interpretations)
      assert.ok(
        requirements.some((r) => r.interpretation === id),
        `${id} is cited by no requirement`,
      );
  });

  void test('interpretation ids and keys are unique, and each default is allowed by its own values or schema', () => {
    assert.equal(new Set(interpretations.map((i) => i.id)).size, interpretations.length, 'duplicate interpretation id');
    assert.equal(
      new Set(interpretations.map((i) => i.key)).size,
      interpretations.length,
      'duplicate interpretation key',
    );
    for (const interpretation of interpretations) {
      if (interpretation.values) {
        assert.ok(
          interpretation.values.includes(interpretation.default as string | number | boolean),
          `${interpretation.id}: default not among the values`,
        );
      } else {
        const check = createAjv().compile(interpretation.schema as object);
        assert.ok(check(interpretation.default), `${interpretation.id}: default does not fit its schema`);
      }
    }
  });

  void test('coverage: every row of the §3 state table', () => {
    /** The §3 rows a source cites: "§3 row 4", "§3 rows 4-5", "§3 rows 4 and 6". */
    const rowsOf = (source: string): number[] =>
      [...source.matchAll(/§3 rows? (\d)(?:(?:-| and )(\d))?/g)].flatMap(([, from, to]) => {
        const first = Number(from);
        const last = to === undefined ? first : Number(to);
        return Array.from({ length: last - first + 1 }, (_, i) => first + i);
      });
    const covered = new Set(requirements.flatMap((r) => rowsOf(r.source)));
    for (const row of [1, 2, 3, 4, 5, 6]) assert.ok(covered.has(row), `no requirement covers §3 row ${row}`);
  });

  void test('coverage: every token error code, the three grants at US and client_credentials at EU', () => {
    const text = requirements.map((r) => `${r.statement} ${r.note ?? ''}`).join('\n');
    for (const code of tokenErrorCodes) assert.ok(text.includes(code), `no requirement mentions ${code}`);
    for (const id of ['GRANT-CC-001', 'GRANT-CC-002', 'GRANT-PW-001', 'GRANT-RT-001'])
      assert.equal(requirementById(id).level, 'MUST');
  });

  void test('coverage: every limit of §8, versioning (§9) and TLS', () => {
    for (const prefix of [
      'LIMIT-AT-LIFETIME-',
      'LIMIT-RT-LIFETIME-',
      'LIMIT-RT-USES-',
      'LIMIT-PWD-',
      'LIMIT-RATE-',
      'SEC-TLS-',
      'VER-',
    ]) {
      assert.ok(
        requirements.some((r) => r.id.startsWith(prefix) && r.level === 'MUST'),
        `no MUST requirement ${prefix}nnn`,
      );
    }
  });

  void test('the reference server cites no retired or unknown requirement ID', () => {
    // A retired ID (AUTH-CLI-010, LIMIT-RATE-004) left in a comment or the README points readers at nothing.
    const root = join(import.meta.dirname, '..', '..', 'reference-server');
    const cited =
      /\b(?:TOKEN-REQ|TOKEN-RESP|GRANT-CC|GRANT-PW|GRANT-RT|AUTH-CLI|ERR-TOK|STATE(?:-[A-Z]+)+|BEARER|ERR-GW(?:-GEN)?|LIMIT(?:-[A-Z]+)+|SEC-TLS|VER)-[0-9]{3,4}\b/g;
    const known = new Set(requirements.map((r) => r.id));
    const unknown: string[] = [];
    for (const entry of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      if (entry.split(/[\\/]/).includes('node_modules') || !/\.(ts|md)$/.test(entry)) continue;
      for (const id of readFileSync(join(root, entry), 'utf8').match(cited) ?? [])
        if (!known.has(id)) unknown.push(`${entry}: ${id}`);
    }
    assert.deepEqual(unknown, []);
  });

  void test('requirementById throws for an unknown ID', () => {
    assert.throws(() => requirementById('GRANT-CC-999'), /unknown requirement ID/);
  });
});
