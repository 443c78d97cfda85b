// The text a hostile target puts in every string it controls: markup for the page and the job
// summary, workflow commands for a CI log, terminal escapes for a console, and characters that hide
// or reorder what a reader sees. Each payload is what a real attack would send, not a marker.

export interface TextPayload {
  name: string;
  text: string;
}

const esc = '\u001b';
const bel = '\u0007';

export const textPayloads: readonly TextPayload[] = [
  { name: 'html script', text: '<script>alert("page")</script>' },
  { name: 'html onerror', text: '<img src=x onerror=alert(1)>' },
  { name: 'html attribute break', text: '" autofocus onfocus="alert(2)' },
  { name: 'markdown link', text: '[Re-authenticate here](http://evil.example/login)' },
  { name: 'markdown image', text: '![status](http://evil.example/pixel.png)' },
  { name: 'markdown mention', text: '@octocat please approve' },
  { name: 'markdown fence break', text: '```\n</details>\n# FORGED HEADING\n```' },
  { name: 'markdown backticks', text: '`` code ` span ``' },
  { name: 'markdown table break', text: 'x | FORGED | PASS |' },
  { name: 'workflow add-mask', text: '\n::add-mask::MASKED-BY-TARGET\n' },
  { name: 'workflow error', text: '\n::error title=INJECTED::forged annotation\n' },
  { name: 'workflow set-output', text: '\n::set-output name=verdict::PASS\n' },
  { name: 'workflow stop-commands', text: '\n::stop-commands::hijack\n' },
  { name: 'workflow indented', text: '\n   ::warning::indented command\n' },
  { name: 'azure logging command', text: 'x ##vso[task.setvariable variable=verdict]PASS' },
  {
    name: 'gitlab section marker',
    text: `\r${esc}[0Ksection_start:1700000000:forged[collapsed=true]\r${esc}[0KAll checks passed`,
  },
  { name: 'clear screen', text: `${esc}[2J${esc}[3J${esc}[HCONFORMANCE PASS` },
  { name: 'osc 8 hyperlink', text: `${esc}]8;;http://evil.example/${bel}click here${esc}]8;;${bel}` },
  { name: 'osc 52 clipboard', text: `${esc}]52;c;Y3VybCBldmlsLmV4YW1wbGU=${bel}` },
  { name: 'c1 csi', text: '\u009b31mred\u009b0m' },
  { name: 'bidi override', text: 'PASS\u202eLIAF\u202c' },
  { name: 'bidi isolate', text: '\u2066admin\u2069\u2067x\u2068y\u2069' },
  { name: 'bidi marks', text: 'a\u200eb\u200fc\u061cd' },
  { name: 'zero width', text: 'in\u200bvis\u200cib\u200dle\u2060' },
  { name: 'byte order mark', text: '\ufeffBOM' },
  { name: 'soft hyphen', text: 'soft\u00adhyphen' },
  { name: 'tag characters', text: 'tag\u{e0041}\u{e0042}\u{e007f}' },
  { name: 'nul', text: 'before\u0000after' },
  { name: 'carriage return', text: 'innocent\r::error::overwritten' },
  { name: 'backspace', text: 'PASS\b\b\b\bFAIL' },
  { name: 'long line', text: `long:${'A'.repeat(4000)}` },
];

/** Every payload of the corpus in one string: what a field gets when the target has one chance. */
export const allTextPayloads: string = textPayloads.map((p) => p.text).join(' ');

/** Characters of the target that must never reach any output raw: they restyle, hide or reorder what a reader sees. */
export const forbiddenCharacters: readonly { name: string; pattern: RegExp }[] = [
  // eslint-disable-next-line no-control-regex
  { name: 'ESC or a C1 control', pattern: /[\u001b\u0080-\u009f]/ },
  // eslint-disable-next-line no-control-regex
  { name: 'NUL, backspace or a lone CR', pattern: /[\u0000\u0008]|\r(?!\n)/ },
  { name: 'a bidi control', pattern: /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/ },
  { name: 'an invisible character', pattern: /[\u200b-\u200d\u2060\ufeff\u00ad]|[\u{e0000}-\u{e007f}]/u },
];

/** What must never reach a console or a CI log raw: the characters, and a runner's command. */
export const forbiddenInLogs: readonly { name: string; pattern: RegExp }[] = [
  // The GitHub runner trims leading whitespace before it looks for `::`.
  { name: 'a workflow command at the start of a line', pattern: /^[ \t]*::[a-z-]+/im },
  { name: 'an Azure logging command', pattern: /##vso\[/ },
  ...forbiddenCharacters,
];

/** The forbidden characters `text` holds, by name (for a file: the page, JUnit, JSON, transcripts). */
export function rawCharacters(text: string): string[] {
  return forbiddenCharacters.filter((f) => f.pattern.test(text)).map((f) => f.name);
}

/** Everything forbidden in a log that `text` holds, by name (for stdout, stderr, a job summary). */
export function rawInLog(text: string): string[] {
  return forbiddenInLogs.filter((f) => f.pattern.test(text)).map((f) => f.name);
}

/**
 * Markdown with its code spans taken out (CommonMark: a run of N backticks opens a span that the
 * next run of exactly N closes): what is left is what renders as Markdown.
 */
export function outsideCodeSpans(markdown: string): string {
  let out = '';
  let at = 0;
  while (at < markdown.length) {
    const open = /`+/g;
    open.lastIndex = at;
    const m = open.exec(markdown);
    if (!m) break;
    const fence = m[0];
    const close = new RegExp(`(?<!\`)${fence}(?!\`)`, 'g');
    close.lastIndex = m.index + fence.length;
    const end = close.exec(markdown);
    if (!end) {
      out += markdown.slice(at, m.index + fence.length);
      at = m.index + fence.length;
      continue;
    }
    out += `${markdown.slice(at, m.index)}CODE`;
    at = end.index + fence.length;
  }
  return out + markdown.slice(at);
}

/** What the target's Markdown would do if rendered: links, images, mentions, HTML, headings it forged. */
export const renderedMarkdown: readonly { name: string; pattern: RegExp }[] = [
  { name: 'a link or an image', pattern: /\]\(http/ },
  { name: 'a mention', pattern: /@octocat/ },
  { name: 'HTML', pattern: /<(script|img|details)/i },
  { name: 'a forged heading', pattern: /^#+ FORGED/m },
];

/** The Markdown of the target that would render in `markdown`, by name. */
export function markdownRendered(markdown: string): string[] {
  const plain = outsideCodeSpans(markdown);
  return renderedMarkdown.filter((f) => f.pattern.test(plain)).map((f) => f.name);
}
