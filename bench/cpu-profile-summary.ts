// The top self-time frames of a V8 .cpuprofile (node --cpu-prof): samples per frame (function,
// file, line), as a share of all samples, so that a profile reads as a short table in a report
// instead of a flame graph. `(idle)` is time the thread had nothing to do; `(program)` and
// `(garbage collector)` are V8's own.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples?: number[];
}

export interface FrameShare {
  frame: string;
  samples: number;
  /** Share of the busy samples (all but `(idle)`), 0..1. */
  share: number;
}

export interface ProfileSummary {
  busySamples: number;
  idleSamples: number;
  top: FrameShare[];
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName === '' ? '(anonymous)' : functionName;
  if (url === '') return name;
  // Paths shortened to what tells the frames apart: the package, or the repository-relative file.
  const short = url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(reference-server|bench|harness)\//, '$1/');
  return `${name} ${short}:${lineNumber + 1}`;
}

export function summarizeProfile(profile: CpuProfile, topN = 20): ProfileSummary {
  const hits = new Map<number, number>();
  if (profile.samples && profile.samples.length > 0) {
    for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  } else {
    for (const node of profile.nodes) hits.set(node.id, node.hitCount ?? 0);
  }
  const byFrame = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  for (const node of profile.nodes) {
    const n = hits.get(node.id) ?? 0;
    if (n === 0) continue;
    if (node.callFrame.functionName === '(idle)') {
      idle += n;
      continue;
    }
    busy += n;
    const name = frameName(node);
    byFrame.set(name, (byFrame.get(name) ?? 0) + n);
  }
  const top = [...byFrame.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, topN)
    .map(([frame, samples]) => ({ frame, samples, share: busy === 0 ? 0 : samples / busy }));
  return { busySamples: busy, idleSamples: idle, top };
}
