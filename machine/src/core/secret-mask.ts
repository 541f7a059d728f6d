import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { MASK } from './state.js';
import type { SecretFingerprint } from './state.js';

/**
 * Masking secret input values in what enters a run (reports, comments, briefs, notes), with their
 * values when this process has them, and without them when it does not: a run keeps, per secret
 * input, keyed fingerprints of the pieces that are masked, so a process that never saw the value (a
 * restart, a step agent's own server) still finds and masks it. A fingerprint is the piece's length,
 * a 32-bit rolling hash and a 128-bit HMAC, both under a key that is not in the run (the home's
 * `secret-mask.key`, `loadMaskKey`) and salted with the run's id: the run file alone gives nothing to
 * guess a value against. Pure: no I/O; the key comes in. HMAC-SHA256 is @noble/hashes's, not
 * node:crypto's, so this package needs no Node built-in (the playground bundles it for the browser); the
 * fingerprints are the same bytes (machine/test/core/secret-mask.test.ts compares them with node:crypto's).
 */

/** Shorter values would mask ordinary words. */
export const MIN_SECRET_LENGTH = 4;

/**
 * The pieces of secret values that are masked: each string (or number) value of 4 characters or more,
 * and of a value on several lines (a key file) each line of that length too, since tools re-indent or
 * print one line of it. Longest first, so a value that contains another is masked whole.
 */
export function secretPieces(values: Iterable<unknown>): string[] {
  const pieces = new Set<string>();
  for (const value of values) {
    const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
    if (text === undefined) continue;
    if (text.length >= MIN_SECRET_LENGTH) pieces.add(text);
    if (!text.includes('\n')) continue;
    for (const line of text.split(/\r?\n/)) {
      const trimmed = line.trim();
      if (trimmed.length >= MIN_SECRET_LENGTH) pieces.add(trimmed);
    }
  }
  return [...pieces].sort((a, b) => b.length - a.length);
}

/** Per secret input given, the fingerprints of its pieces (the whole value first). */
export function fingerprintSecrets(
  secrets: Record<string, unknown>,
  key: Uint8Array,
  runId: string,
): Record<string, SecretFingerprint[]> {
  const keys = derivedKeys(key, runId);
  const prints: Record<string, SecretFingerprint[]> = {};
  for (const [name, value] of Object.entries(secrets)) {
    const pieces = secretPieces([value]);
    if (pieces.length) prints[name] = pieces.map((piece) => fingerprint(piece, keys));
  }
  return prints;
}

/**
 * Whether `value` is the value an input's fingerprints were made from (a secret given again after a
 * restart is checked against the one the run started with). Undefined when there is nothing to
 * compare with (a value too short to be masked).
 */
export function sameSecret(
  value: unknown,
  prints: readonly SecretFingerprint[] | undefined,
  key: Uint8Array,
  runId: string,
): boolean | undefined {
  const [whole] = secretPieces([value]);
  if (whole === undefined || !prints?.length) return undefined;
  const mine = fingerprint(whole, derivedKeys(key, runId));
  return prints.some((p) => p.length === mine.length && p.roll === mine.roll && equalMac(p.mac, mine.mac));
}

/** Masks secret values in text: known values by search, the others by their fingerprints. */
export class SecretMasker {
  private readonly byLength = new Map<number, Map<number, string[]>>();
  private readonly keys: DerivedKeys | undefined;

  constructor(
    private readonly values: readonly string[],
    prints: readonly SecretFingerprint[] = [],
    key?: Uint8Array,
    runId = '',
  ) {
    this.keys = key && prints.length ? derivedKeys(key, runId) : undefined;
    if (!this.keys) return;
    // What the known values mask already needs no search by fingerprint (a value given again after a
    // restart); a fingerprint of another value (one that changed since) is still searched for.
    const knownPrints = new Set(values.map((v) => fingerprint(v, this.keys!).mac));
    for (const print of prints) {
      if (knownPrints.has(print.mac)) continue;
      let rolls = this.byLength.get(print.length);
      if (!rolls) this.byLength.set(print.length, (rolls = new Map()));
      // Keyed as an int32: small integers keep the scan's arithmetic and lookups unboxed.
      rolls.set(print.roll | 0, [...(rolls.get(print.roll | 0) ?? []), print.mac]);
    }
  }

  /** Nothing to mask: no value known and no fingerprint usable. */
  get empty(): boolean {
    return this.values.length === 0 && this.byLength.size === 0;
  }

  mask(text: string): string {
    let out = text;
    for (const value of this.values) if (out.includes(value)) out = out.split(value).join(MASK);
    if (!this.keys || !this.byLength.size) return out;
    // Longest first, as for known values; each window is looked at by its rolling hash, and only a
    // window whose hash is a fingerprint's is proven by the HMAC.
    const lengths = [...this.byLength.keys()].sort((a, b) => b - a);
    for (const length of lengths) out = this.maskLength(out, length, this.byLength.get(length)!, this.keys);
    return out;
  }

  private maskLength(text: string, length: number, rolls: Map<number, string[]>, keys: DerivedKeys): string {
    if (text.length < length) return text;
    const power = powerOf(keys.base, length - 1);
    const base = keys.base | 0;
    let hash = 0;
    for (let i = 0; i < length; i++) hash = (Math.imul(hash, base) + text.charCodeAt(i)) | 0;
    // A 64 Ki-bit filter of the wanted hashes turns almost every window away without a map lookup.
    const filter = new Uint8Array(8192);
    for (const roll of rolls.keys()) filter[(roll >>> 3) & 8191]! |= 1 << (roll & 7);
    const found: number[] = [];
    let last = -length;
    for (let start = 0; ; start++) {
      const macs =
        (filter[(hash >>> 3) & 8191]! & (1 << (hash & 7))) !== 0 && start >= last + length
          ? rolls.get(hash)
          : undefined;
      if (macs) {
        const mac = macOf(text.slice(start, start + length), keys);
        if (macs.some((m) => equalMac(m, mac))) {
          found.push(start);
          last = start;
        }
      }
      const next = start + length;
      if (next >= text.length) break;
      hash = (hash - Math.imul(text.charCodeAt(start), power)) | 0;
      hash = (Math.imul(hash, base) + text.charCodeAt(next)) | 0;
    }
    if (!found.length) return text;
    let out = '';
    let from = 0;
    for (const start of found) {
      out += text.slice(from, start) + MASK;
      from = start + length;
    }
    return out + text.slice(from);
  }
}

interface DerivedKeys {
  /** the rolling hash's multiplier: odd, so it is invertible mod 2^32 */
  base: number;
  mac: Uint8Array;
}

function derivedKeys(key: Uint8Array, runId: string): DerivedKeys {
  const derive = (what: string) => hmac(sha256, key, utf8ToBytes(`${what}\0${runId}`));
  const roll = derive('roll');
  const base = new DataView(roll.buffer, roll.byteOffset, roll.byteLength).getUint32(0);
  return { base: (base | 1) >>> 0, mac: derive('mac') };
}

function fingerprint(piece: string, keys: DerivedKeys): SecretFingerprint {
  let roll = 0;
  for (let i = 0; i < piece.length; i++) roll = (Math.imul(roll, keys.base) + piece.charCodeAt(i)) >>> 0;
  return { length: piece.length, roll, mac: macOf(piece, keys) };
}

function macOf(piece: string, keys: DerivedKeys): string {
  return base64url(hmac(sha256, keys.mac, utf8ToBytes(piece)).subarray(0, 16));
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Base64url without padding, as Node's `Buffer.toString('base64url')` writes it. */
function base64url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let c = 0; c < chars; c++) out += BASE64URL[(n >>> (18 - 6 * c)) & 63];
  }
  return out;
}

/** Compares two MACs in a time that does not depend on where they differ. */
function equalMac(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function powerOf(base: number, exponent: number): number {
  let result = 1;
  for (let i = 0; i < exponent; i++) result = Math.imul(result, base) >>> 0;
  return result;
}
