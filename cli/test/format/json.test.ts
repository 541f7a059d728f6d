import { describe, expect, it } from 'vitest';
import { formatJson } from '../../src/format/json.js';
import { sampleDiagnostics, sourceOf } from './fixtures.js';

describe('formatJson', () => {
  it('prints an empty array for no diagnostics', () => {
    expect(formatJson([], sourceOf)).toBe('[]\n');
  });

  it('is sorted like the text output, 1-based, columns in UTF-16 units, 2-space indented', () => {
    const out = formatJson(sampleDiagnostics(), sourceOf);
    expect(out.endsWith(']\n')).toBe(true);
    const parsed = JSON.parse(out) as { file: string; line: number; column: number; code: string }[];
    expect(parsed.map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`)).toEqual([
      'playbooks/crlf.yml:1:10 PB106',
      'playbooks/crlf.yml:3:10 PB103',
      'playbooks/gone.yml:1:1 PB100',
      'playbooks/pr.yml:4:3 PB300',
      'playbooks/pr.yml:5:13 PB200',
      'playbooks/pr.yml:6:10 PB900',
      'playbooks/pr.yml:7:42 PB202',
      'playbooks/pr.yml:8:33 PB203',
      'playbooks/pr.yml:9:5 PB901',
      'playbooks/pr.yml:10:7 PB400',
      'playbooks/pr.yml:13:1 PB103',
    ]);
    expect(formatJson(sampleDiagnostics().reverse(), sourceOf)).toBe(out);
  });

  it('prints the stable shape exactly', () => {
    const picked = sampleDiagnostics().filter((d) => d.code === 'PB300' || d.code === 'PB202');
    expect(formatJson(picked, sourceOf)).toMatchInlineSnapshot(`
      "[
        {
          "file": "playbooks/pr.yml",
          "line": 4,
          "column": 3,
          "endLine": 7,
          "endColumn": 10,
          "severity": "error",
          "code": "PB300",
          "message": "dependency cycle: review → review",
          "related": [
            {
              "file": "playbooks/pr.yml",
              "line": 5,
              "column": 13,
              "endLine": 5,
              "endColumn": 18,
              "message": "review needs reviw"
            },
            {
              "file": "playbooks/other.yml",
              "line": 1,
              "column": 1,
              "endLine": 1,
              "endColumn": 1,
              "message": "declared here"
            }
          ]
        },
        {
          "file": "playbooks/pr.yml",
          "line": 7,
          "column": 42,
          "endLine": 7,
          "endColumn": 45,
          "severity": "error",
          "code": "PB202",
          "message": "unknown input \\"tsk\\"; did you mean \\"task\\"?"
        }
      ]
      "
    `);
  });
});
