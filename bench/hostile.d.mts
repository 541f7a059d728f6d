/** Types of hostile.mjs, for test/hostile/compiler-inputs.test.ts. */

/** A class of hostile input (issue 11). */
export interface HostileClass {
  id: string;
  /** The item of issue 11 it comes from (0 for the sweep). */
  issue: number;
  what: string;
  /** Growing; the last one is the largest (the one measured). */
  sizes: number[];
  /** The text at size n, or invalid UTF-8 bytes and where the first bad one is. */
  make(n: number): string | { bytes: Uint8Array; badAt: number };
  /** Codes of which at least one must be reported at size n (undefined: only an answer). */
  codes(n: number): string[] | undefined;
}
export const HOSTILE_CLASSES: HostileClass[];
