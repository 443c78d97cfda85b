// What a self-validation run started (servers, proxies, the fault switch, Playwright) and how it is
// all stopped at once.
import type { ChildProcess } from 'node:child_process';
import type { RestartControl } from '../../harness/reference/restart-control.ts';
import type { ReferenceServer, ReferenceServers } from '../../harness/reference/start-reference.ts';
import type { RunningFaultSwitch } from '../fault-switch.ts';
import type { SwitchingProxy } from '../proxy.ts';

/** Everything a run starts, stopped together at the end or on a signal. */
export interface Started {
  shared: ReferenceServers | undefined;
  servers: ReferenceServer[];
  proxies: SwitchingProxy[];
  faultSwitch: RunningFaultSwitch | undefined;
  restartControl?: RestartControl;
  children: Set<ChildProcess>;
  /** Set once stopAll began: a server that finishes starting later stops itself. */
  stopping: boolean;
}

export async function stopAll(started: Started): Promise<void> {
  started.stopping = true;
  for (const c of started.children) c.kill('SIGTERM');
  const stops: Promise<void>[] = [
    ...started.proxies.map((p) => p.close()),
    ...(started.faultSwitch ? [started.faultSwitch.close()] : []),
    ...(started.restartControl ? [started.restartControl.close()] : []),
    ...started.servers.map((s) => s.stop()),
    ...(started.shared ? [started.shared.stop()] : []),
  ];
  await Promise.all(stops.map((p) => p.catch(() => undefined)));
}
