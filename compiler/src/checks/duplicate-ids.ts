import { createDiagnostic, shown } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import type { PlaybookModel } from '../model/model.js';

/** PB110: playbook ids are unique in a workspace; every file after the first with an id is reported. */
export function checkDuplicateIds(models: readonly PlaybookModel[]): Diagnostic[] {
  const first = new Map<string, PlaybookModel>();
  const diagnostics: Diagnostic[] = [];
  for (const model of models) {
    const earlier = first.get(model.id);
    if (!earlier) {
      first.set(model.id, model);
      continue;
    }
    diagnostics.push(
      createDiagnostic(
        model.file,
        'PB110',
        model.idRange ?? { start: 0, end: 0 },
        `playbook id "${shown(model.id)}" is already used by ${earlier.file}${model.idRange ? '' : ' (the id comes from the file name; set id: to tell them apart)'}`,
        {
          related: [
            {
              file: earlier.file,
              range: earlier.idRange ?? { start: 0, end: 0 },
              message: `"${shown(model.id)}" is first used here`,
            },
          ],
        },
      ),
    );
  }
  return diagnostics;
}
