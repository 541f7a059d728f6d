// format's --help, apart from the command so that `main` answers it without loading the command's module.
export const FORMAT_HELP = `Usage: kairoku-playbook format [PATH...] [options]

Formats playbooks with Prettier's YAML printer and the project's Prettier config, found from each
file's folder upwards (.prettierrc in any form, prettier.config.*, the "prettier" key of
package.json, .editorconfig). Comments, a byte order mark and the file's line endings are kept
(unless the config names an endOfLine), and the meaning never changes: a file whose YAML value or
diagnostics would change is left as it is. A file with a YAML syntax error is never touched.
With no PATH, formats the playbooks and playbook tests check discovers in the current folder; a
folder PATH is searched the same way; a file PATH is always formatted. Each file is rewritten whole
or not at all.

Options:
  --check      write nothing: list the files that are not formatted (for CI)
  -h, --help   this help

Exit codes: 0 every file is formatted (with --check: already was), 1 with --check: some file is
not formatted, 2 usage or I/O errors, or a file left as it is (a YAML error, or a change of meaning).`;
