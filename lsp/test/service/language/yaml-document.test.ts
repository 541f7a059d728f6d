import { describe, expect, it } from 'vitest';
import { yamlDocument } from '../../../src/service/language/yaml-document.js';
import { BASE, analyze } from '../../support/cursor.js';

describe('the YAML document of an analysis', () => {
  it("is the compiler's own when it checked the file, parsed again only when it did not", () => {
    const checked = analyze(BASE);
    expect(yamlDocument(checked)).toBe(checked.semantic!.document);
    const list = analyze('- not\n- a mapping\n');
    expect(list.semantic).toBeUndefined();
    expect(yamlDocument(list)?.contents).toMatchObject({ items: [{ value: 'not' }, { value: 'a mapping' }] });
    expect(yamlDocument(list)).toBe(yamlDocument(list));
  });
});
