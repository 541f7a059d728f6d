import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** The file of the home that holds the key of secret fingerprints. */
export const MASK_KEY_FILE = 'secret-mask.key';

/**
 * The key secret values are fingerprinted under (`fingerprintSecrets`), from `HOME/secret-mask.key`
 * (mode 0600), made on first use. Made whole or not at all, and never replaced: written to a temp
 * file, then linked to its name (which fails if another process made it first, whose key is then
 * read), so every process of a home masks with the same key.
 */
export function loadMaskKey(home: string): Buffer {
  const path = join(home, MASK_KEY_FILE);
  const existing = readKey(path);
  if (existing) return existing;
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const temp = join(home, `.${MASK_KEY_FILE}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temp);
  }
  const key = readKey(path);
  if (!key) throw new Error(`${path} does not hold a key (64 hex digits): remove it to make a new one`);
  return key;
}

function readKey(path: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex))
    throw new Error(`${path} does not hold a key (64 hex digits): remove it to make a new one`);
  return Buffer.from(hex, 'hex');
}
