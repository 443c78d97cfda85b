// The repository's import graph: every TypeScript file and the files its import specifiers resolve
// to, read with the TypeScript compiler's pre-processor (static imports, `import type`,
// `export … from`, literal `import()`), so comments and strings never count as imports.
// Used by the import-cycle test and by `import-counts.ts` (the figures of ARCHITECTURE.md's rules).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One import specifier of one file; `to` is the repository-relative file it resolves to, if ours. */
export interface ImportEdge {
  from: string;
  specifier: string;
  /** Undefined for packages and `node:` built-ins. */
  to: string | undefined;
}

export interface ImportGraph {
  root: string;
  /** Repository-relative paths with `/` separators, sorted. */
  files: string[];
  edges: ImportEdge[];
}

/** Output, dependencies and the bench's own installed peers: not our source. */
const skippedDirectories = new Set([
  'node_modules',
  'reports',
  'test-results',
  'playwright-report',
  'blob-report',
  'allure-results',
  'allure-report',
  'data',
  '.git',
  '.work',
]);

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (skippedDirectories.has(entry)) return [];
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) return typeScriptFiles(full);
    return /\.(ts|mts|cts)$/.test(entry) && !entry.endsWith('.d.ts') ? [full] : [];
  });
}

const toPosix = (path: string): string => path.split(sep).join('/');

/** Resolves a relative specifier the way NodeNext + allowImportingTsExtensions does for our tree. */
function resolveRelative(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** The import graph of every .ts file under `root` (or of the given files, for tests). */
export function readImportGraph(root: string): ImportGraph {
  const absoluteFiles = typeScriptFiles(root);
  const edges: ImportEdge[] = [];
  for (const file of absoluteFiles) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: specifier } of info.importedFiles) {
      const isRelative = specifier.startsWith('./') || specifier.startsWith('../');
      const target = isRelative ? resolveRelative(file, specifier) : undefined;
      edges.push({
        from: toPosix(relative(root, file)),
        specifier,
        to: target === undefined ? undefined : toPosix(relative(root, target)),
      });
    }
  }
  return { root, files: absoluteFiles.map((file) => toPosix(relative(root, file))).sort(), edges };
}

/**
 * Every import cycle as the files of one strongly connected component (Tarjan), each cycle
 * sorted, the list sorted; a file importing itself is a cycle of one.
 */
export function importCycles(graph: ImportGraph): string[][] {
  const next = new Map<string, Set<string>>(graph.files.map((file) => [file, new Set<string>()]));
  for (const edge of graph.edges) if (edge.to !== undefined) next.get(edge.from)?.add(edge.to);

  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;

  // Iterative, so a deep import chain cannot overflow the call stack.
  for (const start of graph.files) {
    if (index.has(start)) continue;
    const work: { file: string; targets: Iterator<string> }[] = [];
    const enter = (file: string): void => {
      index.set(file, counter);
      lowLink.set(file, counter);
      counter += 1;
      stack.push(file);
      onStack.add(file);
      work.push({ file, targets: (next.get(file) ?? new Set<string>()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.targets.next();
      if (!step.done) {
        const target = step.value;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) lowLink.set(frame.file, Math.min(lowLink.get(frame.file)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) lowLink.set(parent.file, Math.min(lowLink.get(parent.file)!, lowLink.get(frame.file)!));
      if (lowLink.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.file);
      const selfImport = next.get(frame.file)?.has(frame.file) ?? false;
      if (component.length > 1 || selfImport) cycles.push(component.sort());
    }
  }
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
