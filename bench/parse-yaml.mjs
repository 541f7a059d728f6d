// The baseline of benchmark (a): what an honest checker must do at the least: read the file and
// build the YAML document with source ranges, `yaml.parseDocument(text)`, in a whole `node` process.
//
//   node bench/parse-yaml.mjs FILE                   parseDocument(text) with default options
//   node bench/parse-yaml.mjs --no-unique-keys FILE  parseDocument(text, { uniqueKeys: false })
//
// The defaults include yaml's duplicate-key check (a checker must find duplicate keys too, PB101),
// which the yaml package does by a linear scan of the map for each key: quadratic in the size of
// the `steps:` map. `--no-unique-keys` measures the parse alone, for an informational ratio.
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';

const args = process.argv.slice(2);
const parseOnly = args[0] === '--no-unique-keys';
const file = parseOnly ? args[1] : args[0];
if (!file) {
  process.stderr.write('usage: node bench/parse-yaml.mjs [--no-unique-keys] FILE\n');
  process.exit(2);
}
const text = readFileSync(file, 'utf8');
const doc = parseOnly ? parseDocument(text, { uniqueKeys: false }) : parseDocument(text);
if (doc.errors.length > 0) {
  process.stderr.write(`${file}: ${doc.errors.length} YAML error(s): ${doc.errors[0].message}\n`);
  process.exit(1);
}
