import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FILE_LIMITS, readTextBounded } from '@kairoku-playbook/compiler/disk';
import { writeFileAtomic } from '../../store/atomic-write.js';
import { readToken } from './token-file.js';

/**
 * The app credential every runner presents (RF-011): `$KAIROKU_APP_TOKEN`, else the file given, else
 * the home's `kairoku/token.env` (made on first use, mode 0600, `KAIROKU_TOKEN=…`), which is what
 * runners are given with `--token-file`. `file` is undefined when the value came from the environment
 * and no file was named. A refusal is thrown as an Error whose message says what to do.
 */
export function loadAppToken(
  env: NodeJS.ProcessEnv,
  home: string,
  file: string | undefined,
): { value: string; file: string | undefined } {
  if (env.KAIROKU_APP_TOKEN) {
    if (env.KAIROKU_APP_TOKEN.length < 16)
      throw new Error('$KAIROKU_APP_TOKEN is shorter than 16 characters');
    return { value: env.KAIROKU_APP_TOKEN, file };
  }
  const path = file ?? join(home, 'kairoku', 'token.env');
  if (file === undefined && !existsSync(path)) {
    mkdirSync(join(home, 'kairoku'), { recursive: true, mode: 0o700 });
    writeFileAtomic(path, `KAIROKU_TOKEN=${randomBytes(24).toString('base64url')}\n`);
  }
  const read = readTextBounded(path, FILE_LIMITS.small, 'a token file');
  if (read.problem !== undefined) throw new Error(`the app token file ${path}: ${read.message}`);
  const value = readToken(read.text);
  if (value.length < 16) throw new Error(`the app token in ${path} is shorter than 16 characters`);
  return { value, file: path };
}
