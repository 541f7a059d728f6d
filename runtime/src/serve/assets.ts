import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { refuse } from './answers.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/**
 * The page: `/` is the panel's index.html; `/assets/NAME` is its file NAME (the page loads `assets/panel.js`
 * relative to itself), from the folder or else from the files held in memory; a placeholder without either.
 * Nothing outside the folder is served (a path that resolves out of it, by `..` or a link, is not found).
 */
export function serveAsset(
  res: ServerResponse,
  path: string,
  assetsDir: string | undefined,
  panelFiles: Readonly<Record<string, string>> | undefined,
): void {
  const name =
    path === '/' || path === '/index.html'
      ? 'index.html'
      : path.startsWith('/assets/')
        ? path.slice(8)
        : undefined;
  if (name === undefined) return refuse(res, 404, 'not-found', `no page ${path}`);
  if (assetsDir === undefined) {
    const text = panelFiles && Object.hasOwn(panelFiles, name) ? panelFiles[name] : undefined;
    if (text !== undefined) return sendFile(res, name, Buffer.from(text, 'utf8'));
    if (name === 'index.html') return placeholder(res);
    return refuse(res, 404, 'not-found', `no file ${path}`);
  }
  if (name === 'index.html' && !existsSync(join(assetsDir, 'index.html'))) return placeholder(res);
  let root: string;
  let target: string;
  try {
    root = realpathSync(assetsDir);
    target = realpathSync(resolve(root, `./${decodeURIComponent(name)}`));
  } catch {
    return refuse(res, 404, 'not-found', `no file ${path}`);
  }
  if (!target.startsWith(root + sep) || !statSync(target).isFile())
    return refuse(res, 404, 'not-found', `no file ${path}`);
  sendFile(res, target, readFileSync(target));
}

function placeholder(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(PLACEHOLDER);
}

function sendFile(res: ServerResponse, path: string, body: Buffer): void {
  res.writeHead(200, {
    'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream',
    'Content-Length': body.length,
    'Cache-Control': 'no-cache',
  });
  res.end(body);
}

const PLACEHOLDER = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Playbooks</title></head>
<body><main><h1>Playbooks</h1>
<p>kairoku-playbook serve is running. The panel is not bundled with this build; the API is at
<code>/api/v1</code> (docs/serve.md).</p></main></body></html>
`;
