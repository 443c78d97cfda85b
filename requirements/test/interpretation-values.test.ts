// requirements/interpretation-values.ts (the type of each interpretation's value, by key) is generated
// from requirements/interpretations.json: it must be what the emitter writes for today's catalogue.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { interpretationValuesFile, interpretationValuesText } from '../emit-interpretation-values.ts';
import { interpretations } from '../index.ts';

void test('requirements/interpretation-values.ts is up to date with interpretations.json', () => {
  assert.equal(
    readFileSync(interpretationValuesFile, 'utf8'),
    interpretationValuesText(),
    'stale: run `node --import tsx requirements/emit-interpretation-values.ts`',
  );
});

void test('every interpretation of the catalogue has its key in the generated type', () => {
  const text = interpretationValuesText();
  for (const i of interpretations) assert.match(text, new RegExp(`^  ${i.key}: `, 'm'), i.key);
});
