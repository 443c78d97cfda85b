// The time-travel pass (`run --passes time-travel`) is one Playwright project, or two: the project
// that waits at the pass gate (pass-gate.ts), and, where lanes of a principal of their own run
// beside the conformance checks (serial-lanes.ts lanesBesideConformance), the project of those lanes.
import { serialProject } from './pass-gate.ts';

/** The project of the time-travel lanes that run beside the conformance checks: it does not wait at the gate. */
export const besideConformanceProject = `${serialProject}-beside`;

/** Whether a project's checks belong to the time-travel pass. */
export function inTimeTravelPass(project: string | undefined): boolean {
  return project === serialProject || project === besideConformanceProject;
}

/** The projects of a pass; `beside`: the run has the project of the lanes beside (run manifest serialLanesBeside). */
export function projectsOfPass(pass: 'conformance' | 'time-travel', beside = false): string[] {
  return pass === 'time-travel' && beside ? [serialProject, besideConformanceProject] : [pass];
}
