const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `1h30m` → 5,400,000. Undefined for text that is not a duration (the schema reports it as PB603). */
export function parseDuration(text: string): number | undefined {
  if (!/^(\d+(ms|s|m|h|d))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(ms|s|m|h|d)/g))
    total += Number(amount) * UNIT_MS[unit!]!;
  return total;
}
