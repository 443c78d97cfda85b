// What a `run` selection would run, without running it: `run --requirement ID…` (a grep on the
// requirement tags, refusing unknown IDs), `run --last-failed` (the checks that failed in the
// reports directory's previous run) and `run --list` (Playwright's own listing of the selection,
// read as JSON: each check with its requirement IDs).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasRequirement } from '../../requirements/index.ts';
import { repoRoot } from '../../core/catalogue/catalogue.ts';
import { playwrightCommand } from '../playwright/playwright-cli.ts';
import { inTimeTravelPass } from '../../core/run/time-travel-pass.ts';
import { escapeRegExp } from '../../core/text/escape-regexp.ts';

/** The IDs of `--requirement` (repeatable, comma-separated) and those the catalogue does not know. */
export function requirementSelection(values: string[]): { ids: string[]; unknown: string[] } {
  const ids = [
    ...new Set(
      values
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    ),
  ];
  return { ids, unknown: ids.filter((id) => !hasRequirement(id)) };
}

/** A Playwright grep for checks tagged with any of the IDs (`@GRANT-CC-001`, not `@GRANT-CC-0010`). */
export function requirementGrep(ids: string[]): string {
  return `@(?:${ids.map(escapeRegExp).join('|')})(?![\\w-])`;
}

/** Both patterns must match (lookaheads), either may be absent. */
export function bothGreps(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return `^(?=[\\s\\S]*(?:${a}))(?=[\\s\\S]*(?:${b}))`;
}

interface CheckRecord {
  title: string;
  file: string;
  status: string;
}

/**
 * The previous run's failed checks (reports/checks.json): a grep of their titles and their spec
 * files; undefined when there is no previous run there.
 */
export function lastFailedSelection(
  reportsDir: string,
): { grep: string | undefined; files: string[]; failed: number } | undefined {
  const file = join(reportsDir, 'checks.json');
  if (!existsSync(file)) return undefined;
  const { checks } = JSON.parse(readFileSync(file, 'utf8')) as { checks: CheckRecord[] };
  const failed = checks.filter((c) => c.status === 'failed' || c.status === 'timedOut' || c.status === 'interrupted');
  // The title is "file › describe … › title"; Playwright greps "file describe … title tags".
  const titles = [...new Set(failed.map((c) => c.title.split(' › ').at(-1)!))];
  return {
    grep: titles.length === 0 ? undefined : `(?:${titles.map(escapeRegExp).join('|')})`,
    files: [...new Set(failed.map((c) => join(repoRoot, c.file)))],
    failed: failed.length,
  };
}

export interface ListedCheck {
  file: string;
  title: string;
  project: string;
  requirementIds: string[];
  annotations: { type: string; description?: string }[];
}

interface JsonSpec {
  file: string;
  title: string;
  tags: string[];
  tests: { projectName: string; annotations?: { type: string; description?: string }[] }[];
}
interface JsonSuite {
  specs?: JsonSpec[];
  suites?: JsonSuite[];
}

/** Playwright's listing of a selection (no target contacted, no report written). */
export function listChecks(args: string[], env: NodeJS.ProcessEnv): Promise<ListedCheck[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      playwrightCommand([
        'test',
        '--config',
        join(repoRoot, 'playwright.config.ts'),
        '--list',
        '--reporter',
        'json',
        ...args,
      ]),
      {
        cwd: process.cwd(),
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0)
        return reject(
          new Error(`Playwright could not list the selection (exit ${code}): ${stderr.trim().split('\n')[0] ?? ''}`),
        );
      const listed: ListedCheck[] = [];
      const walk = (suite: JsonSuite) => {
        for (const spec of suite.specs ?? []) {
          for (const test of spec.tests) {
            const annotations = (test.annotations ?? []).map((a) => ({
              type: a.type,
              ...(a.description !== undefined ? { description: a.description } : {}),
            }));
            listed.push({
              file: `specs/${spec.file}`,
              title: spec.title,
              project: test.projectName,
              requirementIds: spec.tags.filter(hasRequirement),
              annotations,
            });
          }
        }
        for (const child of suite.suites ?? []) walk(child);
      };
      for (const suite of (JSON.parse(stdout) as { suites: JsonSuite[] }).suites) walk(suite);
      resolve(listed);
    });
  });
}

/** The `run --list` text: one line per check, then the requirement IDs the selection covers. */
export function renderList(checks: ListedCheck[]): string[] {
  const ids = [...new Set(checks.flatMap((c) => c.requirementIds))];
  return [
    ...checks.map((c) => `  ${c.file} › ${c.title}${inTimeTravelPass(c.project) ? '  (time-travel pass)' : ''}`),
    '',
    `${checks.length} check${checks.length === 1 ? '' : 's'} covering ${ids.length} requirement${ids.length === 1 ? '' : 's'}: ${ids.join(' ')}`,
  ];
}
