import { readFileSync } from 'node:fs';
import { analyzeFile, validateWorkspace } from '@kairoku-playbook/compiler';
import { formatPlaybook } from '@kairoku-playbook/lsp';
const path = process.argv[2];
const text = readFileSync(path, 'utf8');
const r = await formatPlaybook(analyzeFile(path, text), JSON.parse(process.argv[3] ?? 'null'));
console.log('refused' in r ? r.refused : r.text);
if (!('refused' in r)) for (const d of validateWorkspace([{file:path,text:r.text}]).diagnostics) console.log(d.code, d.message);
