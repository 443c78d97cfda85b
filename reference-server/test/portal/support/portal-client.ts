// A browser-like client for inject(): keeps the portal's cookies, reads the CSRF token of the last
// page, posts forms. No socket: the app is built with a certificate, so the portal is open.
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../../helpers.ts';

export class PortalClient {
  readonly cookies = new Map<string, string>();
  lastPage = '';

  constructor(
    private readonly t: TestApp,
    private readonly origin = 'https://127.0.0.1',
  ) {}

  #remember(response: LightMyRequestResponse): LightMyRequestResponse {
    const raw = response.headers['set-cookie'];
    for (const line of raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/Max-Age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    if ((response.headers['content-type'] ?? '').toString().startsWith('text/html')) this.lastPage = response.body;
    return response;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** The CSRF token of the last page's first form. */
  get csrf(): string {
    const match = /name="csrf" value="([^"]+)"/.exec(this.lastPage);
    if (!match?.[1]) throw new Error('setup: the last page has no CSRF field');
    return match[1];
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.#remember(
      await this.t.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1', cookie: this.cookieHeader } }),
    );
  }

  async post(
    url: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    return this.#remember(
      await this.t.app.inject({
        method: 'POST',
        url,
        payload: new URLSearchParams(fields).toString(),
        headers: {
          host: '127.0.0.1',
          origin: this.origin,
          'content-type': 'application/x-www-form-urlencoded',
          cookie: this.cookieHeader,
          ...headers,
        },
      }),
    );
  }

  async signIn(user: { username: string; password: string }): Promise<LightMyRequestResponse> {
    await this.get('/portal/sign-in');
    return this.post('/portal/sign-in', { csrf: this.csrf, username: user.username, password: user.password });
  }
}
