/**
 * The machine masks with @noble/hashes's HMAC-SHA256, not node:crypto's (it imports no Node built-in):
 * the fingerprints must be the bytes the runtime wrote before, with node:crypto, or a run stored then
 * would no longer be masked by them. The runtime's tests (runtime/test/core/secret-mask.test.ts) cover
 * masking itself, across processes.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MASK, SecretMasker, fingerprintSecrets, sameSecret } from '@kairoku-playbook/machine';
import type { SecretFingerprint } from '@kairoku-playbook/machine';

/** A fingerprint as the runtime made it with node:crypto (its code before the machine). */
function nodeFingerprint(piece: string, key: Uint8Array, runId: string): SecretFingerprint {
  const derive = (what: string) => createHmac('sha256', key).update(`${what}\0${runId}`).digest();
  const base = (derive('roll').readUInt32BE(0) | 1) >>> 0;
  let roll = 0;
  for (let i = 0; i < piece.length; i++) roll = (Math.imul(roll, base) + piece.charCodeAt(i)) >>> 0;
  const mac = createHmac('sha256', derive('mac'))
    .update(piece, 'utf8')
    .digest()
    .subarray(0, 16)
    .toString('base64url');
  return { length: piece.length, roll, mac };
}

describe('secret fingerprints without node:crypto', () => {
  it('are the bytes node:crypto makes, for any key, run and value', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.string({ maxLength: 20 }),
        fc.string({ minLength: 4, maxLength: 80, unit: 'grapheme' }),
        (key, runId, value) => {
          const [print] = fingerprintSecrets({ token: value }, key, runId).token ?? [];
          expect(print).toEqual(nodeFingerprint(value, key, runId));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('mask and compare with them', () => {
    const key = new Uint8Array(32).fill(7);
    const prints = fingerprintSecrets({ token: 'tok-Sup3rS3cret' }, key, 'run-1').token!;
    expect(new SecretMasker([], prints, key, 'run-1').mask('a tok-Sup3rS3cret b')).toBe(`a ${MASK} b`);
    expect(sameSecret('tok-Sup3rS3cret', prints, key, 'run-1')).toBe(true);
    expect(sameSecret('tok-Sup3rS3creT', prints, key, 'run-1')).toBe(false);
  });
});
