/**
 * The panel's Chromium tests' setup: the panel built, the stand-in serve started and Chromium launched
 * before the file's tests, all stopped after. Call it at the top of a test file; read `fake` and
 * `browser` inside the tests.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchChromium } from '../../../test/e2e/support/workbench.js';
import { buildPanel } from '../../build.mjs';
import { startFakeApi } from './fake-api.js';
import type { FakeApi } from './fake-api.js';

export function chromiumAgainstFakeApi(): { readonly fake: FakeApi; readonly browser: Browser } {
  const held: { fake?: FakeApi; browser?: Browser } = {};
  beforeAll(async () => {
    await buildPanel();
    held.fake = await startFakeApi();
    held.browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await held.browser?.close();
    await held.fake?.close();
  });
  return {
    get fake() {
      return held.fake!;
    },
    get browser() {
      return held.browser!;
    },
  };
}
