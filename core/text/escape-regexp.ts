// A literal text as a regular expression that matches it alone: check titles, spec paths and
// requirement IDs become Playwright greps and test-file patterns.

/** `text` with every character that means something in a RegExp escaped. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
