// Playwright's JUnit file knows Playwright's statuses only: a check BLOCKED by a failed `setup:`
// assertion reads as a failure there, one BLOCKED by markBlocked as a bare skip, one that recorded
// an obligation (PENDING) as a pass. CI dashboards read JUnit, so the conformance reporter rewrites
// each such check as skipped with its verdict and reason (`<skipped message="BLOCKED: …">`,
// `<skipped message="PENDING: due 2026-…: …">`), and recounts failures, errors and skips per suite
// and in total.

/** The key of one <testcase>: its classname (the spec file) and name (the title path below it). */
export const junitKey = (classname: string, name: string): string => `${classname}\u0000${name}`;

const unescapeXml = (s: string): string => s.replace(/&(quot|apos|lt|gt|amp);/g, (_m, e: string) => ({ quot: '"', apos: "'", lt: '<', gt: '>', amp: '&' })[e]!);
const escapeXml = (s: string): string =>
  // eslint-disable-next-line no-control-regex
  s.replace(/[&"'<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', "'": '&apos;', '<': '&lt;', '>': '&gt;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const setAttr = (tag: string, name: string, value: number) => tag.replace(new RegExp(`(\\s${name}=")[^"]*(")`), `$1${value}$2`);

/** `xml` with every testcase named in `blocked` (junitKey → reason) turned into a skip with its reason. */
export function junitWithBlocked(xml: string, blocked: Map<string, string>): string {
  return junitWithSkipped(xml, new Map([...blocked].map(([key, reason]) => [key, `BLOCKED: ${reason}`])));
}

/** `xml` with every testcase named in `skipped` (junitKey → message) turned into a skip with that message. */
export function junitWithSkipped(xml: string, blocked: Map<string, string>): string {
  if (blocked.size === 0) return xml;
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  const suites = xml.replace(/(<testsuite\b[^>]*>)([\s\S]*?)(<\/testsuite>)/g, (_whole, open: string, body: string, close: string) => {
    let f = 0;
    let e = 0;
    let s = 0;
    const cases = body.replace(/(<testcase\b[^>]*>)([\s\S]*?)(<\/testcase>)/g, (_c, caseOpen: string, caseBody: string, caseClose: string) => {
      const reason = blocked.get(junitKey(unescapeXml(attr(caseOpen, 'classname') ?? ''), unescapeXml(attr(caseOpen, 'name') ?? '')));
      let next = caseBody;
      if (reason !== undefined) {
        const skip = `<skipped message="${escapeXml(reason)}">\n</skipped>`;
        next = /<(failure|error|skipped)\b[^>]*>[\s\S]*?<\/\1>/.test(next)
          ? next.replace(/<(failure|error|skipped)\b[^>]*>[\s\S]*?<\/\1>/, skip)
          : next.replace(/^/, `\n${skip}`);
      }
      if (/<failure\b/.test(next)) f += 1;
      else if (/<error\b/.test(next)) e += 1;
      else if (/<skipped\b/.test(next)) s += 1;
      return `${caseOpen}${next}${caseClose}`;
    });
    failures += f;
    errors += e;
    skipped += s;
    return `${setAttr(setAttr(setAttr(open, 'failures', f), 'errors', e), 'skipped', s)}${cases}${close}`;
  });
  return suites.replace(/<testsuites\b[^>]*>/, (root) => setAttr(setAttr(setAttr(root, 'failures', failures), 'errors', errors), 'skipped', skipped));
}
