import { expect, it } from 'vitest';
import * as format from '../../src/format/index.js';

it('exports the formats and their names', () => {
  expect(format.OUTPUT_FORMATS).toEqual(['text', 'json', 'sarif', 'github']);
  expect(format.OUTPUT_FORMATS.every(format.isOutputFormat)).toBe(true);
  expect(format.isOutputFormat('xml')).toBe(false);
  for (const fn of [format.formatText, format.formatJson, format.formatSarif, format.formatGithub]) {
    expect(typeof fn).toBe('function');
  }
});
