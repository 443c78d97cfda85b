// The portal's pages: plain server-rendered HTML, no script, one same-origin stylesheet. Every
// control is a native element with a visible label, so the pages work with a keyboard and a
// screen reader as they are; errors are listed at the top of a form in an alert region and point
// at their fields.
import type { Client, Environment, User } from '../domain/model.ts';
import type { PasswordStatus } from '../domain/portal/password-status.ts';
import { html, type SafeHtml } from './html.ts';

export const PORTAL_PREFIX = '/portal';
export const portalPaths = {
  home: `${PORTAL_PREFIX}/`,
  signIn: `${PORTAL_PREFIX}/sign-in`,
  signOut: `${PORTAL_PREFIX}/sign-out`,
  password: `${PORTAL_PREFIX}/password`,
  clients: `${PORTAL_PREFIX}/clients`,
  stylesheet: `${PORTAL_PREFIX}/portal.css`,
  rotate: (clientId: string) => `${PORTAL_PREFIX}/clients/${encodeURIComponent(clientId)}/rotate`,
  remove: (clientId: string) => `${PORTAL_PREFIX}/clients/${encodeURIComponent(clientId)}/delete`,
} as const;

/** Who is signed in, for the header and navigation. */
export interface Viewer {
  user: User;
  status: PasswordStatus;
  csrfToken: string;
}

export interface PageFrame {
  title: string;
  environment: Environment;
  viewer?: Viewer;
}

const utc = (epochMs: number): string => `${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

function navigation(viewer: Viewer): SafeHtml {
  const links: [string, string][] = viewer.status.expired
    ? [[portalPaths.password, 'Change password']]
    : [
        [portalPaths.home, 'Home'],
        [portalPaths.password, 'Change password'],
        ...(viewer.user.tenantAdmin ? [[portalPaths.clients, 'Client applications'] as [string, string]] : []),
      ];
  return html`<nav aria-label="Portal">
    <ul>${links.map(([href, label]) => html`<li><a href="${href}">${label}</a></li>`)}</ul>
    <p class="who">Signed in as <strong>${viewer.user.tenant}\\${viewer.user.userName}</strong></p>
    <form method="post" action="${portalPaths.signOut}" class="inline">${csrfField(viewer.csrfToken)}<button type="submit">Sign out</button></form>
  </nav>`;
}

export function page(frame: PageFrame, body: SafeHtml): string {
  return `<!doctype html>\n${
    html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} – Token service portal</title>
<link rel="stylesheet" href="${portalPaths.stylesheet}">
</head>
<body>
<a class="skip" href="#main">Skip to main content</a>
<header>
  <p class="brand">Token service portal <span class="environment">${frame.environment}</span></p>
  ${frame.viewer && navigation(frame.viewer)}
</header>
<main id="main" tabindex="-1">
<h1>${frame.title}</h1>
${body}
</main>
<footer><p>Reference server of token-conformance. Demo data only.</p></footer>
</body>
</html>`.value
  }\n`;
}

export function problemList(message: string, problems: readonly string[]): SafeHtml {
  return html`<div class="problems" role="alert">
  <h2>${message}</h2>
  ${problems.length > 0 && html`<ul>${problems.map((p) => html`<li>${p}</li>`)}</ul>`}
</div>`;
}

export function signInBody(options: {
  csrfToken: string;
  username?: string;
  error?: string;
  notice?: string;
}): SafeHtml {
  return html`${options.notice && html`<p class="notice" role="status">${options.notice}</p>`}
${options.error && problemList(options.error, [])}
<p>Sign in with your platform account to change your password (every 45 days) or, as a tenant administrator, to register your sandbox client applications.</p>
<form method="post" action="${portalPaths.signIn}" class="stacked">
  ${csrfField(options.csrfToken)}
  <label for="username">User name <span class="hint">(tenant_system_name\\user_name)</span></label>
  <input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="200" value="${options.username ?? ''}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
  <button type="submit">Sign in</button>
</form>`;
}

export function passwordStatusBody(status: PasswordStatus): SafeHtml {
  if (status.expired) {
    return html`<div class="notice warning" role="alert"><p><strong>Your password has expired</strong> (on ${utc(status.expiresAt)}). The password grant refuses it until you change it: change it below.</p></div>`;
  }
  const text = html`Your password is valid for <strong>${status.daysLeft} more day${status.daysLeft === 1 ? '' : 's'}</strong>, until ${utc(status.expiresAt)}.`;
  return status.warning
    ? html`<div class="notice warning" role="status"><p><strong>Change your password soon.</strong> ${text}</p></div>`
    : html`<p class="notice">${text}</p>`;
}

export function homeBody(viewer: Viewer, environment: Environment): SafeHtml {
  return html`<h2>Your password</h2>
${passwordStatusBody(viewer.status)}
<p>Passwords must be changed every 45 days. <a href="${portalPaths.password}">Change your password</a>.</p>
${
  viewer.user.tenantAdmin &&
  html`<h2>Client applications</h2>
<p>${
    environment === 'sandbox'
      ? html`As an administrator of tenant <strong>${viewer.user.tenant}</strong> you can <a href="${portalPaths.clients}">register sandbox client applications</a>, rotate their secrets and delete them.`
      : html`See <a href="${portalPaths.clients}">how client applications are registered</a> in production.`
  }</p>`
}`;
}

export const tokenEffects = html`<h2>What happens to your tokens</h2>
<ul>
  <li>Every refresh token issued to you is revoked at once, in every application that signed in with your user name and password.</li>
  <li>Access tokens issued to you with the password grant are refused by the APIs from then on.</li>
  <li>Those applications must sign in again with the password grant and your new password.</li>
  <li>Your other portal sessions are signed out; this one stays signed in.</li>
</ul>`;

export function passwordBody(options: {
  viewer: Viewer;
  rules: readonly string[];
  message?: string;
  problems?: readonly string[];
}): SafeHtml {
  return html`${options.message && problemList(options.message, options.problems ?? [])}
${passwordStatusBody(options.viewer.status)}
<h2 id="policy">Password policy</h2>
<ul aria-labelledby="policy">${options.rules.map((r) => html`<li>${r}</li>`)}</ul>
${tokenEffects}
<h2>New password</h2>
<form method="post" action="${portalPaths.password}" class="stacked">
  ${csrfField(options.viewer.csrfToken)}
  <input type="text" name="username" autocomplete="username" value="${options.viewer.user.tenant}\\${options.viewer.user.userName}" hidden>
  <label for="current-password">Current password</label>
  <input id="current-password" name="current_password" type="password" autocomplete="current-password" required maxlength="1024">
  <label for="new-password">New password</label>
  <input id="new-password" name="new_password" type="password" autocomplete="new-password" required maxlength="1024" aria-describedby="new-password-hint">
  <p id="new-password-hint" class="hint">See the password policy above.</p>
  <label for="confirm-password">New password again</label>
  <input id="confirm-password" name="confirm_password" type="password" autocomplete="new-password" required maxlength="1024">
  <button type="submit">Change password</button>
</form>`;
}

export function passwordChangedBody(
  outcome: { revokedRefreshTokens: number; endedOtherSessions: number },
  status: PasswordStatus,
): SafeHtml {
  return html`<p class="notice success" role="status">Your password was changed.</p>
${passwordStatusBody(status)}
<ul>
  <li>${outcome.revokedRefreshTokens} outstanding refresh token${outcome.revokedRefreshTokens === 1 ? ' was' : 's were'} revoked; access tokens issued from them are refused by the APIs.</li>
  <li>${outcome.endedOtherSessions} other portal session${outcome.endedOtherSessions === 1 ? ' was' : 's were'} signed out.</li>
  <li>The password grant accepts your new password now.</li>
</ul>
<p><a href="${portalPaths.home}">Back to the portal home</a></p>`;
}

export interface ClientFormValues {
  name: string;
  region: string;
  clientCredentials: boolean;
  password: boolean;
  role: string;
}

export const emptyClientForm: ClientFormValues = {
  name: '',
  region: 'us',
  clientCredentials: true,
  password: false,
  role: 'people-reader',
};

function productionNotice(contact: string): SafeHtml {
  return html`<h2>Production client applications</h2>
<p>Production clients cannot be registered on the portal. Registration for production goes through the Data Services team:
e-mail <a href="mailto:${contact}">${contact}</a> with the client id, your tenant id and the role the application needs.
The team registers the client and sends you its credentials.</p>`;
}

function grantsOf(client: Client): string {
  return client.grants.join(', ');
}

export function clientsBody(options: {
  viewer: Viewer;
  environment: Environment;
  clients: readonly Client[];
  roles: readonly string[];
  contact: string;
  values?: ClientFormValues;
  message?: string;
  problems?: readonly string[];
}): SafeHtml {
  if (options.environment !== 'sandbox') return productionNotice(options.contact);
  const v = options.values ?? emptyClientForm;
  const list =
    options.clients.length === 0
      ? html`<p>Your tenant has no sandbox client applications yet.</p>`
      : html`<table>
  <caption>Sandbox client applications of tenant ${options.viewer.user.tenant}</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">client_id</th><th scope="col">Secret</th><th scope="col">Region</th><th scope="col">Grants</th><th scope="col">Role</th><th scope="col">Registered</th><th scope="col">Actions</th></tr></thead>
  <tbody>${options.clients.map(
    (c) => html`<tr>
    <th scope="row">${c.name}</th><td><code>${c.clientId}</code></td><td><code>${c.secretHint ?? '—'}</code></td>
    <td>${c.region.toUpperCase()}</td><td>${grantsOf(c)}</td><td>${c.registration?.role ?? '—'}</td><td>${utc(c.createdAt)}</td>
    <td><a href="${portalPaths.rotate(c.clientId)}">Rotate secret<span class="visually-hidden"> of ${c.name}</span></a>
        <a href="${portalPaths.remove(c.clientId)}">Delete<span class="visually-hidden"> ${c.name}</span></a></td>
  </tr>`,
  )}</tbody>
</table>`;
  return html`${options.message && problemList(options.message, options.problems ?? [])}
<p>Client applications registered here are <strong>sandbox</strong> clients of tenant <strong>${options.viewer.user.tenant}</strong>, registered with Data Services for that tenant and the role you choose: their client_credentials tokens work on the sandbox APIs at once.</p>
<h2>Your sandbox clients</h2>
${list}
<h2>Register a sandbox client</h2>
<form method="post" action="${portalPaths.clients}" class="stacked">
  ${csrfField(options.viewer.csrfToken)}
  <label for="client-name">Application name</label>
  <input id="client-name" name="name" type="text" required maxlength="80" value="${v.name}">
  <fieldset>
    <legend>Region</legend>
    <label><input type="radio" name="region" value="us" ${v.region !== 'eu' ? 'checked' : ''}> United States (US token endpoint)</label>
    <label><input type="radio" name="region" value="eu" ${v.region === 'eu' ? 'checked' : ''}> European Union (EU token endpoint, client_credentials only)</label>
  </fieldset>
  <fieldset>
    <legend>Grants</legend>
    <label><input type="checkbox" name="grant_client_credentials" value="on" ${v.clientCredentials ? 'checked' : ''}> client_credentials (recommended)</label>
    <label><input type="checkbox" name="grant_password" value="on" ${v.password ? 'checked' : ''}> password and refresh_token (US only)</label>
  </fieldset>
  <label for="client-role">Data Services role</label>
  <select id="client-role" name="role">${options.roles.map((r) => html`<option value="${r}" ${r === v.role ? 'selected' : ''}>${r}</option>`)}</select>
  <button type="submit">Register sandbox client</button>
</form>
${productionNotice(options.contact)}`;
}

export function credentialsBody(client: Client, clientSecret: string, rotated: boolean): SafeHtml {
  return html`<p class="notice success" role="status">${rotated ? 'The client secret was replaced. The old secret no longer works.' : 'The sandbox client application was registered.'}</p>
<div class="notice warning"><p><strong>Copy the client secret now.</strong> This is the only time it is shown; afterwards the portal shows only its last characters (<code>${client.secretHint ?? ''}</code>). If it is lost, rotate it.</p></div>
<dl class="credentials">
  <dt>Name</dt><dd>${client.name}</dd>
  <dt>client_id</dt><dd><code id="client-id">${client.clientId}</code></dd>
  <dt>client_secret</dt><dd><code id="client-secret">${clientSecret}</code></dd>
  <dt>Region</dt><dd>${client.region.toUpperCase()}</dd>
  <dt>Grants</dt><dd>${grantsOf(client)}</dd>
  <dt>Data Services registration</dt><dd>tenant ${client.registration?.tenantId ?? '—'}, role ${client.registration?.role ?? '—'}</dd>
</dl>
${rotated && html`<p>Access tokens issued before the rotation stay valid until they expire.</p>`}
<p><a href="${portalPaths.clients}">Back to your client applications</a></p>`;
}

export function confirmBody(viewer: Viewer, client: Client, action: 'rotate' | 'delete'): SafeHtml {
  const rotate = action === 'rotate';
  return html`<dl class="credentials">
  <dt>Name</dt><dd>${client.name}</dd>
  <dt>client_id</dt><dd><code>${client.clientId}</code></dd>
  <dt>Secret</dt><dd><code>${client.secretHint ?? '—'}</code></dd>
</dl>
<p>${
    rotate
      ? 'A new secret replaces the current one at once: the application stops getting tokens until it uses the new secret. Access tokens already issued stay valid until they expire.'
      : 'The client application is deleted: its secret stops working at once, and the APIs refuse the access tokens already issued to it.'
  }</p>
<form method="post" action="${rotate ? portalPaths.rotate(client.clientId) : portalPaths.remove(client.clientId)}" class="inline">
  ${csrfField(viewer.csrfToken)}
  <button type="submit" class="${rotate ? '' : 'danger'}">${rotate ? 'Rotate the secret' : 'Delete the client'}</button>
</form>
<p><a href="${portalPaths.clients}">Cancel</a></p>`;
}

export function clientDeletedBody(client: Client): SafeHtml {
  return html`<p class="notice success" role="status">The client application <strong>${client.name}</strong> (<code>${client.clientId}</code>) was deleted.</p>
<p><a href="${portalPaths.clients}">Back to your client applications</a></p>`;
}

export function signedOutBody(): SafeHtml {
  return html`<p class="notice success" role="status">You are signed out.</p>
<p><a href="${portalPaths.signIn}">Sign in again</a></p>`;
}

export function messageBody(message: string, link?: { href: string; label: string }): SafeHtml {
  return html`<p>${message}</p>${link && html`<p><a href="${link.href}">${link.label}</a></p>`}`;
}
