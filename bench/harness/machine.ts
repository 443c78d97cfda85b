// What the results depend on: the machine, its load, the versions. Recorded with every run.
import { spawnSync } from 'node:child_process';
import { cpus, getPriority, loadavg } from 'node:os';

export interface MachineInfo {
  cpuModel: string;
  cpuCount: number;
  node: string;
  /** This process's nice value (servers and the load generator inherit it). */
  niceness: number;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cpuCount: list.length,
    node: process.version,
    niceness: getPriority(),
  };
}

/** The 1, 5 and 15 minute load averages, formatted. */
export function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');
}

/** Pins this process (every thread) to `cpu` (a number or a list such as `0-1`); false when taskset refuses or is missing. */
export function pinSelf(cpu: number | string): boolean {
  return spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(process.pid)], { stdio: 'ignore' }).status === 0;
}
