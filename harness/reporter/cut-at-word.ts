// A message shortened for a report cell or a terminal line: cut at the last word boundary before
// `max` characters (never mid-word, never mid-surrogate pair), with an ellipsis when anything was cut.
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = head.search(/\s\S*$/);
  // One word longer than the whole budget: cut it, rather than show nothing.
  const kept = space > max / 2 ? head.slice(0, space) : head.replace(/[\uD800-\uDBFF]$/, '');
  return `${kept.trimEnd()}…`;
}
