// One vocabulary of needs: what the catalogue's `needs` say (requirements/requirements.json) and
// what the specs' needs() say are words the capability gate judges (core/profile/capability-gap.ts),
// and every named profile entry among them (`client:usCcOnlyClient`, `resource:queryRoute` …) is
// a field of the profile schema, which a profile lacking it is told to add.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { capabilityGap, isKnownNeed, profileEntries, type Capability } from '../profile/capability-gap.ts';
import { loadProfile } from '../profile/load-profile.ts';
import { buildProfileSchema, clientNames, userNames } from '../profile/profile.schema.ts';
import { requirements } from '../../requirements/index.ts';

const root = join(import.meta.dirname, '..', '..');

const catalogueNeeds = [...new Set(requirements.flatMap((r) => r.needs ?? []))].sort();

const specFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? specFiles(join(dir, entry.name))
      : entry.name.endsWith('.spec.ts')
        ? [join(dir, entry.name)]
        : [],
  );

/** The string literals of every needs(…) call of the specs, with the file that says each. */
const specNeeds = specFiles(join(root, 'specs')).flatMap((file) =>
  [...readFileSync(file, 'utf8').matchAll(/\bneeds\(([^)]*)\)/g)].flatMap((call) =>
    [...call[1]!.matchAll(/'([^']+)'/g)].map((literal) => ({ need: literal[1]!, file: relative(root, file) })),
  ),
);

/** The keys of a zod object that may sit behind a default. */
const keysOf = (schema: z.ZodType): string[] => {
  const object = schema instanceof z.ZodDefault ? schema.unwrap() : schema;
  assert.ok(object instanceof z.ZodObject, 'an object schema');
  return Object.keys(object.shape);
};

void describe('one vocabulary of needs (catalogue, specs, profile)', () => {
  void test('every need the catalogue names is one the capability gate judges', () => {
    assert.ok(catalogueNeeds.length > 0, 'the catalogue names needs');
    assert.deepEqual(
      catalogueNeeds.filter((n) => !isKnownNeed(n)),
      [],
    );
  });

  void test('every need a spec declares is one the capability gate judges', () => {
    assert.ok(specNeeds.length > 0, 'the specs declare needs');
    assert.deepEqual(
      specNeeds.filter(({ need }) => !isKnownNeed(need)),
      [],
    );
  });

  void test("the named entries are the profile schema's own fields", () => {
    const shape = buildProfileSchema().shape;
    const credentials = shape.credentials.unwrap().shape;
    assert.deepEqual([...profileEntries.client.names], [...clientNames]);
    assert.deepEqual([...profileEntries.user.names], [...userNames]);
    assert.deepEqual([...profileEntries.client.names].sort(), keysOf(credentials.clients).sort());
    assert.deepEqual([...profileEntries.user.names].sort(), keysOf(credentials.users).sort());
    assert.deepEqual([...profileEntries.token.names].sort(), keysOf(credentials.tokens).sort());
    // resources.people is the `people` need (the identifiers every gateway check calls with).
    assert.deepEqual([...profileEntries.resource.names, 'people'].sort(), keysOf(shape.resources).sort());
  });

  void test('a profile without the entries the catalogue names SKIPs each of those checks naming the field to add', () => {
    const { profile } = loadProfile(join(root, 'profiles', 'reference.json'));
    const bare = {
      ...profile,
      plainHttpUrl: undefined,
      credentials: { clients: {}, users: {}, tokens: {} },
      resources: {},
    };
    for (const need of catalogueNeeds.filter((n) => n.includes(':') || n === 'plain-http' || n === 'people')) {
      assert.match(
        capabilityGap(bare, need as Capability)?.reason ?? '(none)',
        /^profile has no (credentials\.|resources\.|plainHttpUrl)/,
        need,
      );
      assert.equal(
        capabilityGap(profile, need as Capability)?.verdict ?? 'present',
        need === 'plain-http' || need.startsWith('token:') ? 'SKIP' : 'present',
        `${need} in profiles/reference.json (run --start-reference adds plainHttpUrl and the other environment's token)`,
      );
    }
  });

  void test('an unknown word is refused, and a missing entry SKIPs naming its profile field', () => {
    for (const word of [
      'fixture:us-cc-only-client',
      'client:noSuchClient',
      'resource:people',
      'client:',
      'time-travel',
    ])
      assert.equal(isKnownNeed(word), false, word);
    const { profile } = loadProfile(join(root, 'profiles', 'reference.json'));
    const without = {
      ...profile,
      resources: { ...profile.resources, queryRoute: undefined },
      credentials: { ...profile.credentials, tokens: {} },
    };
    assert.deepEqual(capabilityGap(without, 'resource:queryRoute'), {
      verdict: 'SKIP',
      reason: 'profile has no resources.queryRoute',
    });
    assert.deepEqual(capabilityGap(without, 'token:otherEnvironment'), {
      verdict: 'SKIP',
      reason: 'profile has no credentials.tokens.otherEnvironment',
    });
    assert.deepEqual(capabilityGap({ ...profile, plainHttpUrl: undefined }, 'plain-http'), {
      verdict: 'SKIP',
      reason: 'profile has no plainHttpUrl',
    });
  });
});
