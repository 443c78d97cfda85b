// junit.xml, written by the conformance reporter from the outcomes it judged (as it writes
// traceability.html): CI dashboards read JUnit, so each check reads there as its verdict says, not
// as Playwright's status would. The shape is Playwright's JUnit reporter's — one <testsuite> per
// project and spec file (hostname: the project), one <testcase> per check (name: the title path
// below the file, classname: the file), its annotations as <property> — with:
//   a failed check                → <failure message="file:line:col title" type="FAILURE"> and its redacted error;
//   BLOCKED, PENDING, not verified → <skipped message="BLOCKED: by …: reason"> (PENDING: due …, SKIP: …);
//   skipped by Playwright          → <skipped message="NOT_APPLICABLE: …"> or "SKIP: …".
// Every text comes already redacted from the reporter; the target's words in it are made visible
// and inert here (xmlAttribute, xmlCdata), none dropped.
import { xmlAttribute, xmlCdata } from '../../core/untrusted/neutralise.ts';

export interface JunitCase {
  /** The title path below the spec file (`describe › title`). */
  name: string;
  /** The spec file, relative to the test directory. */
  classname: string;
  timeSeconds: number;
  properties: { name: string; value: string }[];
  outcome:
    { kind: 'passed' } | { kind: 'skipped'; message?: string } | { kind: 'failure'; message: string; text: string };
  stdout?: string;
  stderr?: string;
}

export interface JunitSuite {
  /** The spec file. */
  name: string;
  /** The Playwright project. */
  project: string;
  cases: JunitCase[];
}

const attrs = (values: Record<string, string | number>): string =>
  Object.entries(values)
    .map(([k, v]) => ` ${k}="${xmlAttribute(String(v))}"`)
    .join('');
const seconds = (n: number): number => Math.round(n * 1000) / 1000;

function renderCase(c: JunitCase): string[] {
  const lines = [`<testcase${attrs({ name: c.name, classname: c.classname, time: seconds(c.timeSeconds) })}>`];
  if (c.properties.length > 0) {
    lines.push('<properties>');
    for (const p of c.properties) lines.push(`<property${attrs(p)}>`, '</property>');
    lines.push('</properties>');
  }
  if (c.outcome.kind === 'skipped')
    lines.push(
      `<skipped${c.outcome.message !== undefined ? attrs({ message: c.outcome.message }) : ''}>`,
      '</skipped>',
    );
  if (c.outcome.kind === 'failure')
    lines.push(
      `<failure${attrs({ message: c.outcome.message, type: 'FAILURE' })}>`,
      xmlCdata(c.outcome.text),
      '</failure>',
    );
  if (c.stdout) lines.push('<system-out>', xmlCdata(c.stdout), '</system-out>');
  if (c.stderr) lines.push('<system-err>', xmlCdata(c.stderr), '</system-err>');
  lines.push('</testcase>');
  return lines;
}

/** The JUnit XML of a run: `suites` in the order given, counts per suite and in total. */
export function renderJunit(suites: JunitSuite[], startedAt: Date, durationMs: number): string {
  const count = (cases: JunitCase[], kind: JunitCase['outcome']['kind']) =>
    cases.filter((c) => c.outcome.kind === kind).length;
  const all = suites.flatMap((s) => s.cases);
  const lines = [
    `<testsuites${attrs({ id: '', name: '', tests: all.length, failures: count(all, 'failure'), skipped: count(all, 'skipped'), errors: 0, time: seconds(durationMs / 1000) })}>`,
  ];
  for (const s of suites) {
    const time = s.cases.reduce((t, c) => t + c.timeSeconds, 0);
    lines.push(
      `<testsuite${attrs({ name: s.name, timestamp: startedAt.toISOString(), hostname: s.project, tests: s.cases.length, failures: count(s.cases, 'failure'), skipped: count(s.cases, 'skipped'), time: seconds(time), errors: 0 })}>`,
    );
    for (const c of s.cases) lines.push(...renderCase(c));
    lines.push('</testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n');
}
