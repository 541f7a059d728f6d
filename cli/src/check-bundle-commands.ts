/**
 * The first words of a command line that main-check.ts answers (its bundle, kairoku-playbook.check.cjs,
 * is what the launcher runs for them). A module of its own, so the launcher imports the list alone.
 */
export const CHECK_BUNDLE_COMMANDS: ReadonlySet<string> = new Set(['check', 'completion']);
