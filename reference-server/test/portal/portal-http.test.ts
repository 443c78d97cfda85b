// The portal over HTTP (inject, app built with a certificate): cookies and headers, CSRF on every
// form, the sign-in lock, the expired-password confinement, sandbox registration end to end (the
// new credentials at the token endpoint and the people API), rotation, deletion, sign-out.
import assert from 'node:assert/strict';
import { afterEach, before, beforeEach, describe, test } from 'node:test';
import { createCertificatePems, type CertificatePems } from '../../src/crypto/tls.ts';
import { cc, json, pw, seed, testApp, DAY, type TestApp } from '../helpers.ts';
import { PortalClient } from './support/portal-client.ts';

let pems: CertificatePems;
before(async () => {
  pems = await createCertificatePems('127.0.0.1', new Date(), 1);
});

let t: TestApp;
beforeEach(async () => {
  t = await testApp({ https: pems, throttle: { userFailures: 3 } });
});
afterEach(async () => {
  await t.close();
});

const registerForm = (browser: PortalClient, name = 'HR sync') => ({
  csrf: browser.csrf,
  name,
  region: 'us',
  grant_client_credentials: 'on',
  role: 'people-reader',
});

/** The value shown in `<code id="…">` of the last page. */
function code(browser: PortalClient, id: string): string {
  const match = new RegExp(`<code id="${id}">([^<]+)</code>`).exec(browser.lastPage);
  if (!match?.[1]) throw new Error(`no ${id} on the page`);
  return match[1];
}

const people = (token: string) =>
  t.app.inject({
    method: 'GET',
    url: '/v1/people/er/E-1001',
    headers: { host: '127.0.0.1', accept: 'application/json', authorization: `Bearer ${token}` },
  });

void describe('portal: transport, headers, cookies', () => {
  void test('pages carry CSP, HSTS, nosniff, frame denial and no-store; cookies are __Host-, Secure, HttpOnly, SameSite=Strict', async () => {
    const browser = new PortalClient(t);
    const page = await browser.get('/portal/sign-in');
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html; charset=utf-8/);
    assert.match(
      String(page.headers['content-security-policy']),
      /default-src 'none'.*form-action 'self'.*frame-ancestors 'none'/,
    );
    assert.equal(page.headers['strict-transport-security'], 'max-age=31536000');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(page.headers['referrer-policy'], 'same-origin');
    assert.match(
      String(page.headers['set-cookie']),
      /^__Host-tc-portal-signin=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Strict$/,
    );
    const signedIn = await browser.post('/portal/sign-in', {
      csrf: browser.csrf,
      username: seed.alice.username,
      password: seed.alice.password,
    });
    assert.equal(signedIn.statusCode, 303);
    assert.equal(signedIn.headers.location, '/portal/');
    const cookies = signedIn.headers['set-cookie'] as string[];
    assert.match(
      cookies[0] ?? '',
      /^__Host-tc-portal-session=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Strict$/,
    );
    assert.match(cookies[1] ?? '', /^__Host-tc-portal-signin=; .*Max-Age=0/);
    const css = await browser.get('/portal/portal.css');
    assert.match(String(css.headers['content-type']), /^text\/css/);
  });

  void test("every route group answers with the portal's headers and error pages; none of them leaks to the token endpoint or the gateway", async () => {
    const browser = new PortalClient(t);
    assert.equal((await browser.signIn(seed.olivia)).statusCode, 303);
    const answers = {
      entry: await browser.get('/portal/portal.css'),
      'sign-in': await browser.get('/portal/sign-in'),
      account: await browser.get('/portal/password'),
      'sandbox clients': await browser.get('/portal/clients'),
      'not found': await browser.get('/portal/nothing-here'),
      'form too large': await browser.post('/portal/clients', { name: 'x'.repeat(20_000) }),
    };
    for (const [group, r] of Object.entries(answers)) {
      assert.match(String(r.headers['content-security-policy']), /default-src 'none'/, group);
      assert.equal(r.headers['x-frame-options'], 'DENY', group);
      assert.ok(r.statusCode < 500, `${group}: ${r.statusCode}`);
    }
    assert.equal(answers.account.statusCode, 200);
    assert.equal(answers['sandbox clients'].statusCode, 200);
    assert.equal(answers['form too large'].statusCode, 413, "the portal's error page, inherited by its route groups");
    const token = await t.token(cc(seed.usCc));
    assert.equal(token.statusCode, 200, 'the token endpoint still parses its own forms');
    const gateway = await people(String(json(token).access_token));
    assert.equal(gateway.statusCode, 200);
    for (const r of [token, gateway]) {
      assert.equal(r.headers['content-security-policy'], undefined, "the portal's headers stay in the portal");
      assert.equal(r.headers['x-frame-options'], undefined);
    }
  });

  void test('over plain HTTP the portal is closed: an explanation, no cookie', async () => {
    const plain = await testApp();
    try {
      for (const url of ['/portal', '/portal/', '/portal/sign-in']) {
        const r = await plain.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1' } });
        assert.equal(r.statusCode, 404, url);
        assert.match(r.body, /needs HTTPS/);
        assert.equal(r.headers['set-cookie'], undefined);
      }
    } finally {
      await plain.close();
    }
  });

  void test("/portal redirects to /portal/; unknown portal paths get the portal's own 404 page", async () => {
    const browser = new PortalClient(t);
    assert.equal((await browser.get('/portal')).headers.location, '/portal/');
    const missing = await browser.get('/portal/nothing-here');
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /<h1>Page not found<\/h1>/);
    assert.equal(
      (await browser.get('/portal/')).headers.location,
      '/portal/sign-in',
      'signed out: home sends to the sign-in page',
    );
  });

  void test('bad bodies get a page, not a crash: not a form (415), a repeated field (400), too large (413)', async () => {
    const browser = new PortalClient(t);
    await browser.get('/portal/sign-in');
    assert.equal((await browser.post('/portal/sign-in', {}, { 'content-type': 'application/json' })).statusCode, 415);
    const repeated = await t.app.inject({
      method: 'POST',
      url: '/portal/sign-in',
      payload: 'a=1&a=2',
      headers: { host: '127.0.0.1', 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookieHeader },
    });
    assert.equal(repeated.statusCode, 400);
    const large = await t.app.inject({
      method: 'POST',
      url: '/portal/sign-in',
      payload: `a=${'x'.repeat(20_000)}`,
      headers: { host: '127.0.0.1', 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(large.statusCode, 413);
    assert.match(large.body, /too large/);
  });
});

void describe('portal: CSRF', () => {
  void test('sign-in needs the double-submit token: no cookie, another token or another site are refused', async () => {
    const browser = new PortalClient(t);
    await browser.get('/portal/sign-in');
    const token = browser.csrf;
    const creds = { username: seed.alice.username, password: seed.alice.password };
    assert.equal((await browser.post('/portal/sign-in', { ...creds })).statusCode, 403, 'no token in the form');
    assert.equal(
      (await browser.post('/portal/sign-in', { csrf: `${token}x`, ...creds })).statusCode,
      403,
      'another token',
    );
    const stranger = new PortalClient(t);
    assert.equal((await stranger.post('/portal/sign-in', { csrf: token, ...creds })).statusCode, 403, 'no cookie');
    assert.equal(
      (await browser.post('/portal/sign-in', { csrf: token, ...creds }, { origin: 'https://evil.example' })).statusCode,
      403,
      'another origin',
    );
    assert.equal(
      (await browser.post('/portal/sign-in', { csrf: token, ...creds }, { 'sec-fetch-site': 'cross-site' })).statusCode,
      403,
      'cross-site fetch',
    );
    assert.equal(browser.cookies.has('__Host-tc-portal-session'), false);
    assert.equal((await browser.post('/portal/sign-in', { csrf: token, ...creds })).statusCode, 303);
  });

  void test('every form of a session refuses a missing or wrong token, and changes nothing', async () => {
    const admin = new PortalClient(t);
    await admin.signIn(seed.olivia);
    await admin.get('/portal/clients');
    assert.equal((await admin.post('/portal/clients', registerForm(admin))).statusCode, 201);
    const clientId = code(admin, 'client-id');
    const secret = code(admin, 'client-secret');
    const attacks: [string, Record<string, string>][] = [
      ['/portal/clients', { name: 'forged', region: 'us', grant_client_credentials: 'on', role: 'people-reader' }],
      [`/portal/clients/${clientId}/rotate`, {}],
      [`/portal/clients/${clientId}/delete`, {}],
      [
        '/portal/password',
        {
          current_password: seed.olivia.password,
          new_password: 'Forged-pass-2026',
          confirm_password: 'Forged-pass-2026',
        },
      ],
      ['/portal/sign-out', {}],
    ];
    for (const [url, fields] of attacks) {
      for (const csrf of [undefined, 'forged-token', '']) {
        const r = await admin.post(url, csrf === undefined ? fields : { ...fields, csrf });
        assert.equal(r.statusCode, 403, `${url} with csrf=${String(csrf)}`);
        assert.match(r.body, /could not be verified/);
      }
      const crossSite = await admin.post(
        url,
        { ...fields, csrf: (await admin.get('/portal/'), admin.csrf) },
        { origin: 'https://evil.example' },
      );
      assert.equal(crossSite.statusCode, 403, `${url} from another origin`);
    }
    assert.equal((await t.services.store.listClientsManagedBy('acme')).length, 1, 'no client registered or deleted');
    assert.equal(json(await t.token(cc({ id: clientId, secret }))).token_type, 'Bearer', 'the secret was not rotated');
    assert.equal(json(await t.token(pw(seed.usPw, seed.olivia))).token_type, 'Bearer', 'the password was not changed');
    assert.equal((await admin.get('/portal/')).statusCode, 200, 'still signed in');
  });
});

void describe('portal: sign-in throttling', () => {
  void test('after 3 failures the user name is locked: 429 with Retry-After, the right password refused too, other users fine', async () => {
    const browser = new PortalClient(t);
    for (let i = 0; i < 3; i += 1) {
      await browser.get('/portal/sign-in');
      const r = await browser.post('/portal/sign-in', {
        csrf: browser.csrf,
        username: seed.ivy.username,
        password: `wrong-${i}`,
      });
      assert.equal(r.statusCode, 401);
      assert.match(r.body, /user name or password is wrong/);
    }
    await browser.get('/portal/sign-in');
    const locked = await browser.post('/portal/sign-in', {
      csrf: browser.csrf,
      username: seed.ivy.username,
      password: seed.ivy.password,
    });
    assert.equal(locked.statusCode, 429);
    assert.equal(locked.headers['retry-after'], '900');
    assert.match(locked.body, /Too many failed attempts.*about 15 minutes/);
    assert.equal(browser.cookies.has('__Host-tc-portal-session'), false);
    assert.equal((await new PortalClient(t).signIn(seed.alice)).statusCode, 303);
    t.services.manual.advance(900);
    assert.equal((await new PortalClient(t).signIn(seed.ivy)).statusCode, 303);
  });
});

void describe('portal: password', () => {
  void test('the home page counts the days left and warns in the last 7', async () => {
    const alice = new PortalClient(t);
    await alice.signIn(seed.alice);
    const home = await alice.get('/portal/');
    assert.match(home.body, /valid for <strong>44 more days<\/strong>/);
    assert.doesNotMatch(home.body, /Change your password soon/);
    const paul = new PortalClient(t);
    await paul.signIn(seed.paul);
    assert.match((await paul.get('/portal/')).body, /Change your password soon.*5 more days/s);
  });

  void test('an expired password: signed in to the password page only; after the change the grant works again', async () => {
    t.services.manual.advance(5 * DAY);
    assert.equal(json(await t.token(pw(seed.usPw, seed.paul))).error, 'invalid_grant');
    const paul = new PortalClient(t);
    const signIn = await paul.signIn(seed.paul);
    assert.equal(signIn.headers.location, '/portal/password');
    for (const url of ['/portal/', '/portal/clients'])
      assert.equal((await paul.get(url)).headers.location, '/portal/password', url);
    const page = await paul.get('/portal/password');
    assert.match(page.body, /Your password has expired/);
    assert.match(page.body, /What happens to your tokens/);
    assert.match(page.body, /At least 12 and at most 128 characters/);
    const weak = await paul.post('/portal/password', {
      csrf: paul.csrf,
      current_password: seed.paul.password,
      new_password: 'weak',
      confirm_password: 'weak',
    });
    assert.equal(weak.statusCode, 400);
    assert.match(weak.body, /role="alert"[\s\S]*shorter than 12/);
    const done = await paul.post('/portal/password', {
      csrf: paul.csrf,
      current_password: seed.paul.password,
      new_password: 'Paul-renewed-2026',
      confirm_password: 'Paul-renewed-2026',
    });
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /Your password was changed/);
    assert.match(done.body, /45 more days/);
    assert.equal(
      json(await t.token(pw(seed.usPw, { ...seed.paul, password: 'Paul-renewed-2026' }))).token_type,
      'Bearer',
    );
    assert.equal((await paul.get('/portal/')).statusCode, 200, 'the whole portal is open again');
  });
});

void describe('portal: password change throttling', () => {
  void test('wrong current passwords count towards the lock: then 429 with Retry-After, and nothing changes', async () => {
    const carol = new PortalClient(t);
    await carol.signIn(seed.carol);
    for (let i = 0; i < 3; i += 1) {
      await carol.get('/portal/password');
      const r = await carol.post('/portal/password', {
        csrf: carol.csrf,
        current_password: `wrong-${i}`,
        new_password: 'Carol-new-pass-2026',
        confirm_password: 'Carol-new-pass-2026',
      });
      assert.equal(r.statusCode, 400);
      assert.match(r.body, /The current password is wrong/);
    }
    await carol.get('/portal/password');
    const locked = await carol.post('/portal/password', {
      csrf: carol.csrf,
      current_password: seed.carol.password,
      new_password: 'Carol-new-pass-2026',
      confirm_password: 'Carol-new-pass-2026',
    });
    assert.equal(locked.statusCode, 429);
    assert.equal(locked.headers['retry-after'], '900');
    assert.match(locked.body, /Too many failed attempts/);
    t.services.manual.advance(900);
    assert.equal(json(await t.token(pw(seed.usPw, seed.carol))).token_type, 'Bearer', 'the password is unchanged');
  });
});

void describe('portal: sandbox clients', () => {
  void test('register → token endpoint → people API; the list shows only the hint; rotate; delete (its tokens are refused)', async () => {
    const admin = new PortalClient(t);
    await admin.signIn(seed.olivia);
    const list = await admin.get('/portal/clients');
    assert.match(list.body, /Production clients cannot be registered on the portal/);
    assert.match(list.body, /Data Services team/);
    const created = await admin.post('/portal/clients', registerForm(admin, 'Payroll <sync> & "co"'));
    assert.equal(created.statusCode, 201);
    assert.match(created.body, /Payroll &lt;sync&gt; &amp; &quot;co&quot;/, 'names are escaped');
    const clientId = code(admin, 'client-id');
    const secret = code(admin, 'client-secret');
    const token = json(await t.token(cc({ id: clientId, secret }))).access_token as string;
    assert.equal((await people(token)).statusCode, 200);

    const again = await admin.get('/portal/clients');
    assert.ok(again.body.includes(clientId));
    assert.ok(again.body.includes(`…${secret.slice(-4)}`));
    assert.equal(again.body.includes(secret), false, 'the secret is shown once only');

    await admin.get(`/portal/clients/${clientId}/rotate`);
    const rotated = await admin.post(`/portal/clients/${clientId}/rotate`, { csrf: admin.csrf });
    assert.equal(rotated.statusCode, 200);
    const newSecret = code(admin, 'client-secret');
    assert.equal(json(await t.token(cc({ id: clientId, secret }))).error, 'invalid_client');
    assert.equal(json(await t.token(cc({ id: clientId, secret: newSecret }))).token_type, 'Bearer');

    await admin.get(`/portal/clients/${clientId}/delete`);
    assert.equal((await admin.post(`/portal/clients/${clientId}/delete`, { csrf: admin.csrf })).statusCode, 200);
    assert.equal(json(await t.token(cc({ id: clientId, secret: newSecret }))).error, 'invalid_client');
    assert.equal(json(await people(token)).code, '000-5002', 'tokens of a deleted client are refused');
    assert.equal((await admin.get(`/portal/clients/${clientId}/rotate`)).statusCode, 404);
  });

  void test('form mistakes come back listed with the values kept; a non-administrator is refused', async () => {
    const admin = new PortalClient(t);
    await admin.signIn(seed.olivia);
    await admin.get('/portal/clients');
    const r = await admin.post('/portal/clients', {
      csrf: admin.csrf,
      name: 'EU app',
      region: 'eu',
      grant_password: 'on',
      role: 'people-reader',
    });
    assert.equal(r.statusCode, 400);
    assert.match(r.body, /EU token endpoint offers client_credentials only/);
    assert.match(r.body, /value="EU app"/);
    const alice = new PortalClient(t);
    await alice.signIn(seed.alice);
    assert.equal((await alice.get('/portal/clients')).statusCode, 403);
    assert.equal((await alice.post('/portal/clients', registerForm(alice))).statusCode, 403);
    assert.doesNotMatch((await alice.get('/portal/')).body, /Client applications<\/a>/);
  });
});

void describe('portal: sign-out', () => {
  void test('ends the session: the old cookie no longer opens anything', async () => {
    const browser = new PortalClient(t);
    await browser.signIn(seed.alice);
    const cookie = browser.cookieHeader;
    await browser.get('/portal/');
    const out = await browser.post('/portal/sign-out', { csrf: browser.csrf });
    assert.equal(out.statusCode, 200);
    assert.match(String(out.headers['set-cookie']), /__Host-tc-portal-session=; .*Max-Age=0/);
    const replay = await t.app.inject({ method: 'GET', url: '/portal/', headers: { host: '127.0.0.1', cookie } });
    assert.equal(replay.statusCode, 303);
    assert.equal(replay.headers.location, '/portal/sign-in');
  });
});

void describe('portal: a production server', () => {
  void test('self-registration is closed: the page points to the Data Services team, a POST registers nothing', async () => {
    const prod = await testApp({ https: pems, environment: 'production' });
    try {
      const admin = new PortalClient(prod);
      assert.equal((await admin.signIn(seed.olivia)).statusCode, 303);
      const page = await admin.get('/portal/clients');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Production clients cannot be registered on the portal/);
      assert.doesNotMatch(page.body, /Register sandbox client/);
      await admin.get('/portal/');
      const r = await admin.post('/portal/clients', registerForm(admin));
      assert.equal(r.statusCode, 403);
      assert.match(r.body, /production environment/);
      assert.deepEqual(await prod.services.store.listClientsManagedBy('acme'), []);
    } finally {
      await prod.close();
    }
  });
});
