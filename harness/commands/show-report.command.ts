// `npx token-conformance show-report [DIR]`: serves a reports directory (default reports/) on
// loopback and prints its URL. The traceability page opens from a file too, but Allure 3's report
// and Playwright's HTML report must be served (opened from file:// they spin forever).
// Runs until interrupted (Ctrl-C). Exit codes: 0 stopped, 2 bad arguments or no such directory.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { processIo, type CommandIo } from './command-io.ts';

const usage = `Usage: token-conformance show-report [DIR] [--port N]

Serves DIR (default reports/) on http://127.0.0.1 and prints the addresses of the reports in it:
the traceability page, the Allure report (npm run report:allure) and Playwright's HTML report.
  --port N   port on 127.0.0.1 (default 0: a free one)
Stop with Ctrl-C.`;

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ico': 'image/x-icon',
  '.zip': 'application/zip',
};

/** A static file server of `dir` on loopback: GET/HEAD only, never outside `dir`. */
export function serveDirectory(dir: string, port = 0): Promise<{ server: Server; url: string }> {
  const root = resolve(dir);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = resolve(root, `.${path}`);
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(404).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    res.writeHead(200, {
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolveStart, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      resolveStart({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
    });
  });
}

/** The reports found in `dir`, as URLs under `url`. */
export function reportLinks(dir: string, url: string): string[] {
  const found: [string, string][] = [
    ['traceability page', 'traceability.html'],
    ['Allure report', 'allure-report/index.html'],
    ['Playwright HTML report', 'playwright-report/index.html'],
    ['self-validation matrix', 'self-validation/matrix.html'],
  ];
  return found.filter(([, f]) => existsSync(join(dir, f))).map(([what, f]) => `  ${what.padEnd(24)} ${url}${f}`);
}

export async function showReportMain(args: string[], io: CommandIo = processIo, stop?: Promise<void>): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { port: { type: 'string', default: '0' }, help: { type: 'boolean', default: false } },
    });
  } catch (error) {
    io.err(`token-conformance show-report: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (parsed.values.help) {
    io.out(usage);
    return 0;
  }
  if (parsed.positionals.length > 1) {
    io.err(`token-conformance show-report: give at most one DIR (got ${parsed.positionals.length})`);
    return 2;
  }
  const port = parsed.values.port;
  if (!/^\d+$/.test(port) || Number(port) > 65535) {
    io.err(`token-conformance show-report: --port must be 0..65535 (got '${port}')`);
    return 2;
  }
  const dir = resolve(parsed.positionals[0] ?? 'reports');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    io.err(
      `token-conformance show-report: ${dir} is not a directory; give the --reports directory of a run (default reports/)`,
    );
    return 2;
  }
  let started;
  try {
    started = await serveDirectory(dir, Number(port));
  } catch (error) {
    io.err(`token-conformance show-report: --port ${port}: ${(error as Error).message}`);
    return 2;
  }
  io.out(`Serving ${dir} at ${started.url} (Ctrl-C to stop)`);
  const links = reportLinks(dir, started.url);
  for (const l of links.length > 0 ? links : ['  (no report found there yet: run token-conformance run first)'])
    io.out(l);
  await (stop ??
    new Promise<void>((resolveStop) => {
      process.once('SIGINT', () => resolveStop());
      process.once('SIGTERM', () => resolveStop());
    }));
  await new Promise<void>((resolveClose) => started.server.close(() => resolveClose()));
  return 0;
}
