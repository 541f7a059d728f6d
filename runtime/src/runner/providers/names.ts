/** The providers a runner can launch an agent with (`--provider`, RF-014). */
export const PROVIDERS = ['command', 'claude', 'codex'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export function isProviderName(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}
