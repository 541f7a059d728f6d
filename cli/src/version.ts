/**
 * The toolchain's version and where the project lives, as the CLI, its SARIF output and the VS Code
 * extension's build read them: from the compiler's code-links, the one home of the links to the docs
 * (so `explain`, SARIF and the language server name the same place). cli/package.json must say the
 * same version (cli/test/distribution.test.ts checks it).
 */
export {
  VERSION,
  REPOSITORY_URL,
  RELEASE_TAG,
  repositoryFileUrl,
} from '@kairoku-playbook/compiler/code-links';
