// `init` learns what a deployment demands before writing the profile: a client whose token request
// is refused gets what the refusal points to (a scope), from --token-parameter or the prompt, and
// only parameters the target was seen accepting are written as verified; person identifiers given
// on the command line are kept whatever the target answered, and the missing and malformed ones are
// optional. The target's words are never echoed, only its status and an OAuth error code.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { initMain, type InitDeps } from '../commands/init.command.ts';
import { parseTokenParameterFlags } from '../init/token-parameters-flag.ts';
import type { RawAnswer, TokenPoster } from '../preflight/token-post.ts';
import { validateProfile } from '../../core/profile/load-profile.ts';
import { parseJsonc } from '../../core/profile/jsonc.ts';
import { capturedIo } from './support/captured-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'tc-init-learns-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const capture = capturedIo;

/** A target that issues no token without `scope=people.read`, answering as a production IdP might. */
function scopeDemandingTarget(refusal: RawAnswer): { poster: TokenPoster; posts: Record<string, string>[] } {
  const posts: Record<string, string>[] = [];
  return {
    posts,
    poster: {
      post: (_url, form) => {
        posts.push(form);
        return Promise.resolve(
          form.scope === 'people.read' ? { status: 200, body: '{"access_token":"t","token_type":"Bearer"}' } : refusal,
        );
      },
      get: () => Promise.resolve({ status: 200, body: '{}' }),
      close: () => Promise.resolve(),
    },
  };
}

const flags = (file: string, ...extra: string[]) => [
  '--out',
  file,
  '--name',
  'idp',
  '--auth-url-us',
  'https://auth.example.com',
  '--base-url',
  'https://api.example.com',
  '--client',
  'usClient=cc-client',
  ...extra,
  '--no-outlook',
];
const env = { IDP_US_CLIENT_SECRET: 'a-long-enough-secret-value' };
const profileOf = (file: string) =>
  validateProfile(parseJsonc(readFileSync(file, 'utf8')), file, {
    env: { IDP_US_CLIENT_SECRET: 'x'.repeat(20) },
  }).profile;

void describe('init learns what the deployment demands', () => {
  void test('a refusal naming scope, and --token-parameter: tried, verified, written with a comment saying so', async () => {
    const file = join(dir, 'given.jsonc');
    const c = capture();
    const target = scopeDemandingTarget({ status: 400, body: '{"error":"invalid_scope"}' });
    const deps: InitDeps = { env, poster: () => target.poster };
    assert.equal(
      await initMain(flags(file, '--token-parameter', 'usClient.scope=people.read'), c.io, undefined, deps),
      0,
      c.err.join('\n'),
    );
    assert.deepEqual(profileOf(file).credentials.clients.usClient?.tokenParameters, { scope: 'people.read' });
    assert.match(readFileSync(file, 'utf8'), /usClient: tokenParameters verified by init/);
    assert.ok(
      c.out.some((l) => /usClient \(client_credentials\): a token with scope=… as given: verified/.test(l)),
      c.out.join('\n'),
    );
    assert.deepEqual(
      target.posts.map((p) => p.scope),
      ['people.read'],
      'one request, with the declared parameters',
    );
  });

  void test('no parameter given, on a terminal: the refusal is diagnosed, the prompt asked, the answer verified and written', async () => {
    const file = join(dir, 'asked.jsonc');
    const c = capture();
    const target = scopeDemandingTarget({
      status: 400,
      body: '{"error":"invalid_request","error_description":"scope is required"}',
    });
    const questions: string[] = [];
    const deps: InitDeps = {
      env,
      poster: () => target.poster,
      ask: (q) => {
        questions.push(q);
        return Promise.resolve('scope=people.read');
      },
    };
    assert.equal(await initMain(flags(file, '--person-existing', 'E-1'), c.io, undefined, deps), 0, c.err.join('\n'));
    assert.equal(questions.length, 1);
    assert.match(questions[0]!, /issued no token to usClient \(HTTP 400 invalid_request, naming scope\)/);
    assert.deepEqual(profileOf(file).credentials.clients.usClient?.tokenParameters, {
      client_credentials: { scope: 'people.read' },
    });
    assert.ok(
      c.out.some((l) => /the answer names `scope`, this deployment demands one/.test(l)),
      c.out.join('\n'),
    );
    assert.ok(!c.out.join('\n').includes('scope is required'), "the target's own words are not echoed");
  });

  void test('no parameter and no terminal: a bare 403 is said plainly with the flag that would settle it, nothing invented', async () => {
    const file = join(dir, 'bare.jsonc');
    const c = capture();
    const target = scopeDemandingTarget({ status: 403, body: '' });
    assert.equal(
      await initMain(flags(file, '--find-people', '--person-existing', 'E-1001'), c.io, undefined, {
        env,
        poster: () => target.poster,
        findPeople: () =>
          Promise.resolve({ lines: ['no token for usClient (HTTP 403): the identifiers were not checked'] }),
      }),
      0,
      c.err.join('\n'),
    );
    const text = c.out.join('\n');
    assert.match(text, /usClient \(client_credentials\): no token \(HTTP 403, no body\)/);
    assert.match(text, /--token-parameter usClient\.NAME=VALUE/);
    const profile = profileOf(file);
    assert.equal(profile.credentials.clients.usClient?.tokenParameters, undefined);
    assert.deepEqual(
      profile.resources.people,
      { existing: 'E-1001' },
      'the identifier given is kept whatever the probe found',
    );
    assert.match(text, /existing E-1001 kept as you gave it/);
    assert.match(text, /no missing one .*, no malformed one .*: the checks that need one SKIP naming it/);
  });

  void test('a client served without parameters needs none; a declared parameter without its secret set is written, said unverified', async () => {
    const file = join(dir, 'plain.jsonc');
    const c = capture();
    const posts: Record<string, string>[] = [];
    const poster: TokenPoster = {
      post: (_u, form) => (posts.push(form), Promise.resolve({ status: 200, body: '{"access_token":"t"}' })),
      get: () => Promise.resolve({ status: 200, body: '{}' }),
      close: () => Promise.resolve(),
    };
    assert.equal(
      await initMain(
        flags(
          file,
          '--client',
          'euClient=eu-client',
          '--auth-url-eu',
          'https://eu.example.com',
          '--token-parameter',
          'euClient.audience=api',
        ),
        c.io,
        undefined,
        { env, poster: () => poster },
      ),
      0,
      c.err.join('\n'),
    );
    const text = c.out.join('\n');
    assert.match(text, /usClient \(client_credentials\): a token without extra parameters/);
    assert.match(
      text,
      /euClient: tokenParameters written as given, not verified \(\$IDP_EU_CLIENT_SECRET is not set\)/,
    );
    assert.deepEqual(posts.length, 1);
    assert.match(readFileSync(file, 'utf8'), /euClient: tokenParameters as given, not verified by init/);
  });

  void test('--token-parameter: its forms, and a clear error for each bad one', () => {
    assert.deepEqual(
      [
        ...parseTokenParameterFlags([
          'usClient.scope=a b',
          'usClient.audience=x',
          'usPasswordClient.password.scope=openid',
        ]),
      ],
      [
        ['usClient', { kind: 'every-grant', parameters: { scope: 'a b', audience: 'x' } }],
        ['usPasswordClient', { kind: 'per-grant', grants: { password: { scope: 'openid' } } }],
      ],
    );
    for (const [bad, why] of [
      ['usClient.scope', /give a value/],
      ['nobody.scope=x', /'nobody' is not one of/],
      ['usClient.client_id=x', /set by the suite itself/],
      ['usClient.implicit.scope=x', /not a grant the suite sends/],
    ] as const)
      assert.throws(() => parseTokenParameterFlags([bad]), why, bad);
    assert.throws(
      () => parseTokenParameterFlags(['usClient.scope=x', 'usClient.password.scope=y']),
      /already has parameters for every grant/,
    );
  });
});
