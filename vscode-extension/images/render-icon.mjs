// Renders icon.svg to icon.png, the extension's icon (the marketplaces take a PNG of at least 128 px, never
// an SVG). Run it after editing the SVG and commit both; the build only packages the PNG.
//
//   node vscode-extension/images/render-icon.mjs
//
// It drives Chromium through playwright-core: /usr/bin/chromium (Debian's `chromium` package, which
// scripts/install-vscode-e2e-debian-packages.sh installs), or the browser named by CHROMIUM_PATH.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ICON_SIZE = 256;

const here = dirname(fileURLToPath(import.meta.url));

export async function renderIcon(svgPath = join(here, 'icon.svg'), pngPath = join(here, 'icon.png')) {
  const svg = readFileSync(svgPath, 'utf8');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  try {
    const page = await browser.newPage({
      viewport: { width: ICON_SIZE, height: ICON_SIZE },
      deviceScaleFactor: 1,
    });
    await page.setContent(`<!doctype html><body style="margin:0;background:transparent">${svg}</body>`);
    await page.screenshot({
      path: pngPath,
      omitBackground: true,
      clip: { x: 0, y: 0, width: ICON_SIZE, height: ICON_SIZE },
    });
  } finally {
    await browser.close();
  }
  return pngPath;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`${await renderIcon()}\n`);
}
