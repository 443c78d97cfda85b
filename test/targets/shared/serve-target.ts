// What every independent target's start.ts does around its own token servers: the US and EU token
// servers and the gateway, each on its own HTTPS origin on a free loopback port, with a certificate
// and client/user secrets generated for this start; one JSON line
//   {"event":"listening","authUrlUs","authUrlEu","baseUrl","caFile","clients":{name:{clientId,clientSecret}},"users":{name:{username,password}}}
// on stdout once it listens; stopped by SIGTERM/SIGINT. A start.ts given --behind-proxy serves its
// gateway to a proxy in front of it (createGateway's behindProxy).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { createGateway, rejectUnframable, type FindToken } from './gateway.ts';
import { generatePrincipals, type Region, type TargetClient, type TargetUser } from './principals.ts';

/** The token servers a target brings: one handler per region and how the gateway finds a token. */
export interface TokenServers {
  handlers: Record<Region, RequestListener>;
  findToken: FindToken;
}

export type BuildTokenServers = (
  origins: Record<Region, string>,
  clients: TargetClient[],
  users: TargetUser[],
) => TokenServers;

/** Starts the target named `name` (the certificate's common name and the temporary folder's prefix). */
export async function serveTarget(name: string, build: BuildTokenServers): Promise<void> {
  const now = Date.now();
  const { private: key, cert } = await generate([{ name: 'commonName', value: `${name} conformance target` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const certDir = mkdtempSync(join(tmpdir(), `${name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}-target-`));
  const caFile = join(certDir, 'ca.pem');
  writeFileSync(caFile, cert);

  /** An HTTPS server on a free loopback port whose handler is set once the origins are known. */
  async function listen(): Promise<{ server: Server; origin: string; serve(handler: RequestListener): void }> {
    let handler: RequestListener = (_req, res) => res.writeHead(503).end();
    // The gateway checks the Host header itself (000-1001) rather than Node's bare 400.
    const server = createServer({ key, cert, requireHostHeader: false }, (req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      server,
      origin: `https://127.0.0.1:${port}`,
      serve: (h) => {
        handler = h;
      },
    };
  }

  const [us, eu, gateway] = await Promise.all([listen(), listen(), listen()]);
  const { clients, users } = generatePrincipals();
  const servers = build({ us: us.origin, eu: eu.origin }, clients, users);
  us.serve(servers.handlers.us);
  eu.serve(servers.handlers.eu);
  // --behind-proxy: the gateway is reached through a proxy on other ports (the bench's latency proxy; gateway.ts).
  gateway.serve(
    createGateway(gateway.origin, servers.findToken, clients, users, process.argv.includes('--behind-proxy')),
  );
  gateway.server.on('clientError', rejectUnframable);

  const stop = (): void => {
    for (const { server } of [us, eu, gateway]) {
      server.close();
      server.closeAllConnections();
    }
    rmSync(certDir, { recursive: true, force: true });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  // Stopping is set up before the line is printed: whoever reads it may stop the target at once.
  process.stdout.write(
    `${JSON.stringify({
      event: 'listening',
      authUrlUs: us.origin,
      authUrlEu: eu.origin,
      baseUrl: gateway.origin,
      caFile,
      clients: Object.fromEntries(clients.map((c) => [c.name, { clientId: c.clientId, clientSecret: c.clientSecret }])),
      users: Object.fromEntries(users.map((u) => [u.name, { username: u.username, password: u.password }])),
    })}\n`,
  );
}
