/** The examples the page offers (build.mjs writes this module from the repository's files). */
declare module '#examples' {
  export interface Example {
    /** where it comes from: `playbooks/pr.yml`, `docs/reference.md:120` */
    origin: string;
    /** the file's name, as `check` would print it */
    file: string;
    text: string;
  }
  export const EXAMPLES: readonly Example[];
}
