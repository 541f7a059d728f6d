/**
 * `node:crypto` for the browser bundle (build.mjs maps the specifier here): the compiler hashes a
 * playbook's text into its IR (`source.sha256`) with `createHash('sha256')`, synchronously, which the
 * browser's SubtleCrypto cannot do. The same SHA-256 from @noble/hashes, so the IR is the CLI's, byte for
 * byte. Only what the compiler calls.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

class Sha256 {
  private readonly parts: Uint8Array[] = [];
  update(data: string | Uint8Array): this {
    this.parts.push(typeof data === 'string' ? utf8ToBytes(data) : data);
    return this;
  }
  digest(encoding: 'hex'): string {
    if (encoding !== 'hex')
      throw new Error(`the playground's createHash digests to hex only, not ${String(encoding)}`);
    const hash = sha256.create();
    for (const part of this.parts) hash.update(part);
    return bytesToHex(hash.digest());
  }
}

export function createHash(algorithm: string): Sha256 {
  if (algorithm !== 'sha256') throw new Error(`the playground hashes with sha256 only, not ${algorithm}`);
  return new Sha256();
}
