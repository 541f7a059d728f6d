/**
 * The Playbooks view's HTML: the panel's own script and style sheet (copied into the extension at build,
 * dist/panel/), loaded from the extension's files through the webview's resource URIs. A strict CSP: no
 * inline script or style, nothing but the extension's files, no network at all (`connect-src 'none'`:
 * the page reaches serve only through the extension host). No `vscode` here.
 */
import { checkCspSource, escapeHtml } from './graph-view.js';

export interface PlaybooksPageOptions {
  /** the webview's `cspSource` */
  cspSource: string;
  /** the webview URIs of dist/panel/panel.js and dist/panel/panel.css */
  script: string;
  style: string;
}

export function playbooksPageCsp(cspSource: string): string {
  return [
    "default-src 'none'",
    `script-src ${cspSource}`,
    `style-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-src 'none'",
    "object-src 'none'",
  ].join('; ');
}

export function renderPlaybooksPage(options: PlaybooksPageOptions): string {
  checkCspSource(options.cspSource);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(playbooksPageCsp(options.cspSource))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Playbooks</title>
<link rel="stylesheet" href="${escapeHtml(options.style)}">
<script type="module" src="${escapeHtml(options.script)}"></script>
</head>
<body>
<div id="app"></div>
</body>
</html>
`;
}
