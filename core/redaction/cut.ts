// Shortening a message for a report: always after redaction (a secret cut in two is no longer
// recognisable by its shape or value, and a JSON string cut open lets redaction run on past its
// end, over whatever follows), and at a word boundary, so that no word — a code, an
// `Expected:` — is shown half.
/**
 * `text` cut to at most `max` characters, ellipsis included, at the last space before the limit
 * (never mid-word, never mid-surrogate pair); unchanged when short enough.
 */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = head.search(/\s\S*$/);
  // A single long run (a token-like string) has no boundary worth keeping: cut it where the limit falls.
  const kept = space > max / 2 ? head.slice(0, space) : head.replace(/[\uD800-\uDBFF]$/, '');
  return `${kept.trimEnd()}…`;
}
