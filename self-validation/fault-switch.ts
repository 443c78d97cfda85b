// The fault switch of a self-validation batch: a loopback HTTP endpoint of the runner through which
// a Playwright worker puts a check's fault in force on its group's proxy before the check starts
// (fixtures/expected-failures.fixture.ts). One worker runs the checks of many faults one at a time,
// so a worker start is paid per group, not per fault.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SwitchingProxy } from './proxy.ts';

/** The worker option that names the switch: where it listens and which group's proxy to switch (the same shape as fixtures/expected-failures.fixture.ts reads). */
export interface FaultSwitchOption {
  url: string;
  group: string;
}

/** The path a worker asks: POST /select?group=<group>&fault=<fault id>; 204 once the fault is in force. */
export const faultSwitchPath = '/select';

export interface RunningFaultSwitch {
  url: string;
  close(): Promise<void>;
}

export async function startFaultSwitch(proxies: ReadonlyMap<string, SwitchingProxy>): Promise<RunningFaultSwitch> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://switch.invalid');
    const proxy = proxies.get(url.searchParams.get('group') ?? '');
    const fault = url.searchParams.get('fault') ?? '';
    if (req.method !== 'POST' || url.pathname !== faultSwitchPath || !proxy) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such group\n');
      return;
    }
    req.resume();
    proxy.select(fault).then(
      () => res.writeHead(204).end(),
      (error: unknown) => {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`${(error as Error).message}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
