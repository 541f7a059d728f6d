export type {
  Diagnostic,
  DiagnosticOptions,
  OffsetRange,
  QuickFix,
  RelatedLocation,
  Severity,
  TextEdit,
} from './diagnostic.js';
export { MAX_MESSAGE, MAX_SHOWN, createDiagnostic, shownValue, sortDiagnostics } from './diagnostic.js';
export { CODES } from './codes.js';
export { REPOSITORY_URL, codeLink, diagnosticAnchor, githubAnchor } from './code-links.js';
export type { Code, CodeInfo } from './codes.js';
export { SourceText } from './source-text.js';
export { representative } from './types/representative.js';
export type { Position } from './source-text.js';
export { lineColumnSpan, toJsonDiagnostic } from './json-diagnostic.js';
export type { JsonDiagnostic } from './json-diagnostic.js';
export { analyzeFile } from './compile.js';
export { analyzeChange, analyzeEdited, changeBetween, templateEditOf } from './incremental.js';
export type { EditAnalysis, TemplateEdit, TextChange } from './incremental.js';
export { YAML_LIMITS, readYaml, unreadable } from './yaml/read-yaml.js';
export type { AnalyzeOptions, FileAnalysis } from './compile.js';
export { validate, validateWorkspace, decodeSource } from './validate.js';
export { analyzeTestFile, playbooksOfTests } from './playbook-tests/test-file.js';
export { exampleInputValue } from './playbook-tests/checks/test-inputs-fix.js';
export type { TestFileAnalysis } from './playbook-tests/test-file.js';
export type { TestSite } from './playbook-tests/sites.js';
export { gatesOf, resolveName, withoutMisplacedEchoes } from './playbook-tests/resolve-names.js';
export type { NameProblem, NameUse, NamedUnit, TestPlaybook } from './playbook-tests/resolve-names.js';
export { describeShapePath, expectedWords, shapeProblems } from './playbook-tests/shape-problems.js';
export type { ShapeFormat, ShapePlace, ShapeProblem } from './playbook-tests/shape-problems.js';
export type { RefusedSource, Validation, ValidationOptions, WorkspaceFile } from './validate.js';
export type * from './model/model.js';
export type { Type } from './types/type.js';
export { toJsonSchema, typeToString } from './types/type.js';
export { compileAnalysis, compilePlaybook, serializeIr } from './compile-ir.js';
export { expression as lowerExpression } from './ir/emit.js';
export type { Compilation } from './compile-ir.js';
export type * from './ir/ir.js';
export { IR_VERSION } from './ir/ir.js';
export { parseDuration } from './ir/duration.js';
export { checkIr } from './ir/check-ir.js';
export { regionSteps } from './ir/ranges.js';
export {
  FileWalk,
  WALK_LIMITS,
  discoverPlaybooks,
  displayPath,
  isPlaybookPath,
  isPlaybookFile,
  isSharedFolderPath,
  topLevelKind,
  isPlaybookTest,
  isDiscoveredPath,
  playbookFilesOf,
  walkFiles,
} from './workspace/discovery.js';
export { checkCommandIn } from './workspace/check-command.js';
export { EXCLUDE_FILE, excludeTest, parseExcludes } from './workspace/excludes.js';
export { FILE_LIMITS, refusalDiagnostic, refusalMessage } from './workspace/file-system.js';
export type { FileRead, WorkspaceFileSystem } from './workspace/file-system.js';
export {
  POLICY_FILE,
  WorkspaceLoader,
  excludesOf,
  findPolicyFile,
  joinPath,
  parentOf,
  readWorkspaceFile,
} from './workspace/loader.js';
export type {
  LoadOptions,
  LoadRequest,
  LoadedPlaybook,
  LoadedWorkspace,
  ReadResult,
  Refusal,
} from './workspace/loader.js';
export type { ExcludeTest } from './workspace/excludes.js';
export type {
  DirectoryEntry,
  DirectoryLister,
  Discovery,
  WalkLimits,
  WalkOptions,
} from './workspace/discovery.js';
export { bind } from './bind/bind.js';
export { SemanticModel } from './bind/semantic-model.js';
export type { BoundTypeExpression } from './bind/semantic-model.js';
export {
  CHECK_OUTPUTS,
  STEP_STATUSES,
  ScopeProvider,
  mayBeAbsent,
  playbookScope,
  rootMember,
  stepKindText,
  stepScope,
} from './bind/scope-provider.js';
export type { Place, Scope, ScopeMember } from './bind/scope-provider.js';
export type { BoundTemplate, Reference, TagMistake, TemplateInfo } from './bind/template.js';
export type {
  ContextReference,
  ExpressionReference,
  FunctionReference,
  InExpression,
  InputReference,
  LoopTargetReference,
  NameReference,
  NeedReference,
  OutcomeReference,
  OutputReference,
  PropertyReference,
  RoleBaseReference,
  RoleReference,
  StepReference,
  SymbolReference,
} from './bind/references.js';
export type { Graph } from './graph/graph.js';
export { FIXED_ROLES, isValidName } from './model/model.js';
export { findSuppressions } from './suppressions.js';
export { DEFAULT_GATED, DEFAULT_POLICY, analyzePolicyFile, isPolicyFile } from './policy-file/policy-file.js';
export type { ApprovalPolicy, GatedPattern, PolicyAnalysis } from './policy-file/policy-file.js';
export * from './diff/index.js';
