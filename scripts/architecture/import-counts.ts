// Import counts across the folders of ARCHITECTURE.md, for the record of a restructuring (before and
// after) and for anyone checking a layer by hand. One count is one import specifier (an `import`,
// `import type`, `export … from` or literal `import()`) that resolves to a file of ours.
//
// The test API's figures follow: the names fixtures/index.ts exports, those no spec imports, and
// the spec imports of a name another area's support folder defines.
//
//   node --import tsx scripts/architecture/import-counts.ts               the table
//   node --import tsx scripts/architecture/import-counts.ts --list        and every counted import
//   node --import tsx scripts/architecture/import-counts.ts --root DIR    of another checkout (a before)
import { join, resolve } from 'node:path';
import { importCycles, readImportGraph, type ImportEdge } from './import-graph.ts';
import { readTestApi } from './test-api.ts';

const rootArgument = process.argv.indexOf('--root');
const root = rootArgument > 0 ? resolve(process.argv[rootArgument + 1]!) : join(import.meta.dirname, '..', '..');
const graph = readImportGraph(root);
const ours = graph.edges.filter((edge): edge is ImportEdge & { to: string } => edge.to !== undefined);

const under =
  (folder: string) =>
  (file: string): boolean =>
    file.startsWith(`${folder}/`);
const specArea = (file: string): string | undefined => file.match(/^specs\/([^/]+)\//)?.[1];
const isTest = (file: string): boolean => /\.test\.ts$/.test(file) || /(^|\/)test\//.test(file);

const measures: { name: string; counts(edge: ImportEdge & { to: string }): boolean }[] = [
  { name: 'fixtures/ → harness/', counts: (e) => under('fixtures')(e.from) && under('harness')(e.to) },
  { name: 'harness/ → fixtures/', counts: (e) => under('harness')(e.from) && under('fixtures')(e.to) },
  { name: 'specs/ → harness/', counts: (e) => under('specs')(e.from) && under('harness')(e.to) },
  {
    name: 'specs/<area> → fixtures/ other than fixtures/index.ts and fixtures/support/<area>/',
    counts: (e) =>
      under('specs')(e.from) &&
      under('fixtures')(e.to) &&
      e.to !== 'fixtures/index.ts' &&
      !under(`fixtures/support/${specArea(e.from)}`)(e.to),
  },
  {
    name: 'specs/<area> → another specs/<area>',
    counts: (e) =>
      specArea(e.from) !== undefined && specArea(e.to) !== undefined && specArea(e.from) !== specArea(e.to),
  },
  {
    name: 'harness/ tests → reference-server/',
    counts: (e) => under('harness')(e.from) && isTest(e.from) && under('reference-server')(e.to),
  },
  {
    name: 'harness/ (not tests) → reference-server/',
    counts: (e) => under('harness')(e.from) && !isTest(e.from) && under('reference-server')(e.to),
  },
  {
    name: 'fixtures/ or specs/ → reference-server/',
    counts: (e) => (under('fixtures')(e.from) || under('specs')(e.from)) && under('reference-server')(e.to),
  },
  {
    name: 'core/ → judges/, fixtures/, harness/ or specs/',
    counts: (e) =>
      under('core')(e.from) && ['judges', 'fixtures', 'harness', 'specs'].some((folder) => under(folder)(e.to)),
  },
  {
    name: 'judges/ → fixtures/, harness/ or specs/',
    counts: (e) => under('judges')(e.from) && ['fixtures', 'harness', 'specs'].some((folder) => under(folder)(e.to)),
  },
];

const list = process.argv.includes('--list');
for (const measure of measures) {
  const hits = ours.filter((edge) => measure.counts(edge));
  console.log(`${String(hits.length).padStart(4)}  ${measure.name}`);
  if (list) for (const hit of hits) console.log(`        ${hit.from} → ${hit.specifier}`);
}
const cycles = importCycles(graph);
console.log(`${String(cycles.length).padStart(4)}  import cycles`);
for (const cycle of cycles) console.log(`        ${cycle.join(' ↔ ')}`);

const api = readTestApi(root);
const imported = new Set(api.imports.map((i) => i.name));
const supportArea = (name: string) =>
  /(^|\/)support\/([^/]+)\//.exec(api.names.find((n) => n.name === name)?.from ?? '')?.[2];
const apiFigures: [string, string[]][] = [
  ['names fixtures/index.ts exports', api.names.map((n) => n.name)],
  ['of them imported by no spec', api.names.map((n) => n.name).filter((n) => !imported.has(n))],
  [
    "spec imports of an index.ts name another area's fixtures/support/ defines",
    api.imports
      .filter((i) => supportArea(i.name) !== undefined && supportArea(i.name) !== i.area)
      .map((i) => `${i.spec} ${i.name} (support/${supportArea(i.name)})`),
  ],
];
for (const [name, hits] of apiFigures) {
  console.log(`${String(hits.length).padStart(4)}  ${name}`);
  if (list) for (const hit of hits) console.log(`        ${hit}`);
}
