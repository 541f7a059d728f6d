import { analyzeFile } from '@kairoku-playbook/compiler';
import type { FileAnalysis } from '@kairoku-playbook/compiler';
import type { OffsetEdit } from '../../src/service/language/types.js';

export const CURSOR = '<|>';

/** Strips the one `<|>` marker from a sample: the text and the marker's offset. */
export function withCursor(sample: string): { text: string; offset: number } {
  const offset = sample.indexOf(CURSOR);
  if (offset < 0 || sample.indexOf(CURSOR, offset + 1) >= 0)
    throw new Error('a sample needs exactly one <|>');
  return { text: sample.slice(0, offset) + sample.slice(offset + CURSOR.length), offset };
}

/** Analyses a sample with a cursor marker, as the server would (file name `pb.yml`). */
export function analyzeAt(
  sample: string,
  file = 'playbooks/pb.yml',
): { analysis: FileAnalysis; offset: number } {
  const { text, offset } = withCursor(sample);
  return { analysis: analyzeFile(file, text), offset };
}

export function analyze(text: string, file = 'playbooks/pb.yml'): FileAnalysis {
  return analyzeFile(file, text);
}

/** Applies offset edits (non-overlapping) to a text. */
export function applyEdits(text: string, edits: readonly OffsetEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.range.start - a.range.start))
    result = result.slice(0, edit.range.start) + edit.newText + result.slice(edit.range.end);
  return result;
}

/** The text a range covers. */
export function slice(text: string, range: { start: number; end: number }): string {
  return text.slice(range.start, range.end);
}

/** A small playbook every feature test can start from. */
export const BASE = `version: 1
title: Test
inputs:
  task: { type: string, description: What to build }
  strict: { type: boolean, default: false }
roles:
  sec:
    base: reviewer
steps:
  plan:
    role: planner
    prompt: Plan \${{ inputs.task }}
    outputs:
      plan: string
      files: list<string>
  build:
    needs: [plan]
    role: implementer
    prompt: |
      Build \${{ steps.plan.outputs.plan }}
    outputs:
      branch: string
  qa:
    needs: [build]
    run: npm test
  review:
    needs: [qa]
    role: sec
    when: inputs.strict
    prompt: Review \${{ steps.build.outputs.branch }}
    outcomes:
      approved: next
      changes: { loop: build, feedback: "\${{ report.summary }}" }
`;
