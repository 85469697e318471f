/**
 * "Did you mean …?" for a name a person typed: a command, an option, a configuration key, an
 * auth_method. The distance is Damerau–Levenshtein in its restricted form (a swap of two neighbours
 * counts once), compared without case, and a name counts as close only within one edit for every
 * four characters, at most two: `item_path` → `items_path`, `probe_pth` → `probe_path`, `bearr` →
 * `bearer`, but not `region_id` → `region`, which is a different name rather than a typo.
 */

/** The candidate closest to `input` when it is close enough to be a typo of it, else undefined. */
export function closestName(input: string, candidates: Iterable<string>): string | undefined {
  const typed = input.toLowerCase();
  const limit = Math.min(2, Math.max(1, Math.floor(typed.length / 4)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const distance = editDistance(typed, candidate.toLowerCase(), limit);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean 'x'?` with the closest candidate, or '' when none is close. */
export function didYouMean(input: string, candidates: Iterable<string>, quote = "'"): string {
  const match = closestName(input, candidates);
  return match === undefined ? '' : `; did you mean ${quote}${match}${quote}?`;
}

/** Optimal string alignment distance, stopped early once every path exceeds `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0);
    current[0] = i;
    let rowMin = current[0];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current[j] = value;
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
