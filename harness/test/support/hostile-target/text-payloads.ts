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

/** What must never reach a console or a summary raw, wherever the target's text went. */
export const forbiddenRaw: readonly { name: string; pattern: RegExp }[] = [
  // The GitHub runner trims leading whitespace before it looks for `::`.
  { name: 'a workflow command at the start of a line', pattern: /^[ \t]*::[a-z-]+/im },
  { name: 'an Azure logging command', pattern: /##vso\[/ },
  // eslint-disable-next-line no-control-regex
  { name: 'ESC or a C1 control', pattern: /[\u001b\u0080-\u009f]/ },
  // eslint-disable-next-line no-control-regex
  { name: 'NUL, backspace or a lone CR', pattern: /[\u0000\u0008]|\r(?!\n)/ },
  { name: 'a bidi control', pattern: /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/ },
  { name: 'an invisible character', pattern: /[\u200b-\u200d\u2060\ufeff\u00ad]|[\u{e0000}-\u{e007f}]/u },
];

/** The forbidden things `text` holds, by name. */
export function rawFindings(text: string): string[] {
  return forbiddenRaw.filter((f) => f.pattern.test(text)).map((f) => f.name);
}
