/**
 * Shareable links: the playbook in the URL's fragment (never sent to a server), compressed with the
 * browser's own CompressionStream (raw DEFLATE) and written in base64url, beside the file's name:
 * `#file=pr.yml&playbook=…`. Decoding a fragment that is not one gives a message, never an exception.
 */

export interface Shared {
  file: string;
  text: string;
}

export type Decoded =
  { kind: 'none' } | { kind: 'shared'; shared: Shared } | { kind: 'bad'; message: string };

/** Longer than this a decoded playbook is refused: a fragment that inflates without end is a bomb. */
export const MAX_SHARED_CHARS = 2_000_000;

export async function encodeShared({ file, text }: Shared): Promise<string> {
  const compressed = await pipe(new TextEncoder().encode(text), new CompressionStream('deflate-raw'));
  const params = new URLSearchParams({ file, playbook: toBase64Url(compressed) });
  return `#${params.toString()}`;
}

export async function decodeShared(fragment: string): Promise<Decoded> {
  const body = fragment.startsWith('#') ? fragment.slice(1) : fragment;
  if (body === '') return { kind: 'none' };
  const params = new URLSearchParams(body);
  const data = params.get('playbook');
  if (data === null)
    return { kind: 'bad', message: 'the link has no playbook in it (its fragment has no "playbook=" part)' };
  const file = params.get('file') || 'playbook.yml';
  if (!isFileName(file))
    return {
      kind: 'bad',
      message: `the link names the file "${file}"; a playbook's name is a relative path (no "..") ending in .yml or .yaml`,
    };
  const bytes = fromBase64Url(data);
  if (!bytes)
    return {
      kind: 'bad',
      message: 'the link is damaged: its playbook is not base64url text (was it cut short?)',
    };
  let inflated: Uint8Array;
  try {
    inflated = await pipe(bytes, new DecompressionStream('deflate-raw'), MAX_SHARED_CHARS * 4);
  } catch (error) {
    const why =
      error instanceof TooLarge
        ? error.message
        : 'its playbook does not decompress (was the link cut short?)';
    return { kind: 'bad', message: `the link is damaged: ${why}` };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(inflated);
  } catch {
    return { kind: 'bad', message: 'the link is damaged: its playbook is not UTF-8 text' };
  }
  return { kind: 'shared', shared: { file, text } };
}

/**
 * A name the page checks a text under, as `check` prints a file's path: relative, with forward slashes
 * and no `..` (the docs' examples include `.kairoku/playbooks/x.yml`), ending in .yml or .yaml.
 */
export function isFileName(name: string): boolean {
  return /^[^/\\]+(\/[^/\\]+)*\.ya?ml$/.test(name) && !name.split('/').includes('..');
}

class TooLarge extends Error {}

async function pipe(
  input: Uint8Array,
  transform: { writable: WritableStream<BufferSource>; readable: ReadableStream<Uint8Array> },
  limit = Infinity,
): Promise<Uint8Array> {
  const writer = transform.writable.getWriter();
  // (the write's own promise rejects with the same error the reader sees: caught here, said there)
  writer.write(input as BufferSource).catch(() => undefined);
  writer.close().catch(() => undefined);
  const reader = transform.readable.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge(
        `its playbook is larger than ${MAX_SHARED_CHARS.toLocaleString('en-US')} characters`,
      );
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
