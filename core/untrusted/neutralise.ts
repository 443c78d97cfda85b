// Text a target sent, made harmless for the place it is shown. The target is untrusted: its error
// codes, descriptions, header values and token fields reach the terminal, a CI job log, the
// traceability page, a Markdown job summary, JUnit, SARIF and CTRF. Every writer that shows such
// text passes it through one of these functions, so that a target can neither forge the tool's
// output (a CI workflow command, a Markdown link, an HTML element) nor hide, reorder or restyle
// what a reader sees (terminal escapes, bidi controls, invisible characters).
//
// The one rule underneath: a character that is not plainly visible becomes a visible escape
// `\u{…}` (its code point in hex), never dropped, so the reader sees that the target sent it.

/**
 * What is escaped: C0 controls except tab and line feed (handled per output), DEL and the C1
 * controls (0x9B is a one-byte CSI), the bidi controls (embeddings, overrides, isolates, marks,
 * the Arabic letter mark), invisible and zero-width characters (soft hyphen, Mongolian vowel
 * separator, zero-width space/joiners, word joiner and invisible operators, BOM, Hangul fillers,
 * interlinear annotation marks, the tag characters), the line and paragraph separators, the
 * noncharacters U+FFFE/U+FFFF and lone surrogates (neither is valid XML).
 */
const unseen =
  // Each listed on its own on purpose (combining ones included): each is escaped by itself.
  // eslint-disable-next-line no-control-regex, no-misleading-character-class
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ufffe\uffff]|[\u{e0000}-\u{e0fff}]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;

const escapeOf = (c: string): string => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`;

/**
 * Every control, bidi and invisible character as a visible `\u{…}` escape; line feeds and tabs
 * kept (a CRLF reads as a line feed). For text shown over several lines: the page's reasons,
 * JUnit's CDATA, a report field.
 */
export function visible(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(unseen, escapeOf);
}

/** `visible`, on one line: line feeds and tabs escaped as well. */
export function oneLine(text: string): string {
  return visible(text).replace(/[\n\t]/g, escapeOf);
}

/**
 * Target text inside a line of the terminal or a CI job log. On one line, so it can never start
 * a line of its own: a CI runner reads a workflow command only at the start of a line (GitHub's
 * `::…::`, after leading blanks; Azure's `##[…]`), so the writer's own words always come first.
 * Azure also reads `##vso[` anywhere in a line: its second `#` is escaped.
 */
export function consoleText(text: string): string {
  return oneLine(text).replace(/##(?=vso\[|\[)/gi, '#\\u{23}');
}

/**
 * The styling a terminal may keep in another process's output (Playwright's reporters): colours
 * (SGR) and the line reporter's "up one line, erase it". Any other sequence (clear screen, OSC
 * hyperlinks and clipboard writes, cursor jumps) is escaped, even on a terminal.
 */
// eslint-disable-next-line no-control-regex
const keptStyling = /(\u001b\[[0-9;]*m|\u001b\[1A|\u001b\[2K)/;

/**
 * One line of output the tool passes on to its terminal or CI log (a child's stdout or stderr, or
 * a command's own lines that quote the target): every unseen character visible, an Azure command
 * broken, and a line a runner would read as a command put behind a visible marker. With
 * `keepStyling` (the output is a terminal, not a log) colours and the progress line's redraw stay.
 */
export function terminalOutput(line: string, keepStyling = false): string {
  const parts = keepStyling ? line.split(keptStyling) : [line];
  const text = parts
    .map((part, i) => (i % 2 === 1 ? part : visible(part).replace(/\n/g, escapeOf)))
    .join('')
    .replace(/##(?=vso\[|\[)/gi, '#\\u{23}');
  const plain = keepStyling
    ? text
        .split(keptStyling)
        .filter((_, i) => i % 2 === 0)
        .join('')
    : text;
  return /^\s*(::|##)/.test(plain) ? `| ${text}` : text;
}

/** The longest run of backticks in `text`. */
const longestBackticks = (text: string): number => Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));

/**
 * Target text as a Markdown code span, on one line: no link, image, mention, HTML or heading can
 * form, and no fence can break out (the span's fence is longer than any backtick run inside). An
 * empty text is an empty string.
 */
export function markdownCode(text: string): string {
  const content = consoleText(text);
  if (content.length === 0) return '';
  const fence = '`'.repeat(longestBackticks(content) + 1);
  // A space on each side keeps a backtick at either end from joining the fence (CommonMark strips one).
  const padded = /^[` ]|[` ]$/.test(content) ? ` ${content} ` : content;
  return `${fence}${padded}${fence}`;
}

/** `markdownCode` inside a Markdown table cell: a pipe would end the cell even in a code span (GFM). */
export function markdownCell(text: string): string {
  return markdownCode(text).replace(/\|/g, '\\|');
}

const htmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Target text in HTML (an element's text or a quoted attribute): escaped, every unseen character visible. */
export function htmlText(text: string): string {
  return visible(text).replace(/[&<>"']/g, (c) => htmlEntities[c]!);
}

const xmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Target text in a quoted XML attribute: escaped, every unseen character visible (none is dropped). */
export function xmlAttribute(text: string): string {
  return visible(text).replace(/[&<>"']/g, (c) => xmlEntities[c]!);
}

/** Target text as an XML CDATA section: every unseen character visible, `]]>` split across two sections. */
export function xmlCdata(text: string): string {
  return `<![CDATA[${visible(text).replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}
