/** How much a diagnostic matters: an error stops the playbook from compiling, the others do not. */
export type Severity = 'error' | 'warning' | 'info';

/** The stable diagnostic codes of SPEC §4. A code never changes meaning; new ones are appended. */
export interface CodeInfo {
  title: string;
  severity: Severity;
}

export const CODES = {
  PB100: { title: 'YAML syntax error', severity: 'error' },
  PB101: { title: 'duplicate key', severity: 'error' },
  PB102: { title: 'unknown key', severity: 'error' },
  PB103: { title: 'missing required key', severity: 'error' },
  PB104: { title: 'wrong shape or scalar type for a key', severity: 'error' },
  PB105: { title: 'invalid name', severity: 'error' },
  PB106: { title: 'unsupported version', severity: 'error' },
  PB107: { title: 'a step needs exactly one of prompt, run, gate', severity: 'error' },
  PB110: { title: 'duplicate playbook id in a workspace', severity: 'error' },
  PB200: { title: 'unknown step in needs', severity: 'error' },
  PB201: { title: 'unknown role', severity: 'error' },
  PB202: { title: 'unknown input in an expression', severity: 'error' },
  PB203: { title: 'unknown step in an expression', severity: 'error' },
  PB204: { title: 'unknown output of a step', severity: 'error' },
  PB205: { title: 'referenced step is not an ancestor', severity: 'error' },
  PB206: { title: 'outcome or choice not declared by the step', severity: 'error' },
  PB207: { title: 'unknown loop target', severity: 'error' },
  PB208: { title: 'a step needs itself', severity: 'error' },
  PB209: { title: 'unknown name or property in an expression', severity: 'error' },
  PB300: { title: 'dependency cycle', severity: 'error' },
  PB301: { title: 'loop target is not the step or one of its ancestors', severity: 'error' },
  PB302: { title: 'loop max out of range', severity: 'error' },
  PB310: { title: 'a step that can never run', severity: 'warning' },
  PB311: { title: 'a reachable state where the run is stuck', severity: 'error' },
  PB400: { title: 'expression syntax error', severity: 'error' },
  PB401: { title: 'type mismatch', severity: 'error' },
  PB402: { title: 'unknown function or wrong number of arguments', severity: 'error' },
  PB403: { title: 'invalid type expression', severity: 'error' },
  PB404: { title: 'default does not fit its type', severity: 'error' },
  PB405: { title: 'when is not boolean', severity: 'error' },
  PB406: { title: 'unterminated ${{', severity: 'error' },
  PB407: { title: 'secret input where an agent or a person would see it', severity: 'error' },
  PB500: { title: 'role base is not in the fixed table', severity: 'error' },
  PB501: { title: 'unknown tool in a policy', severity: 'error' },
  PB502: { title: 'policy grants more than its base allows', severity: 'error' },
  PB504: { title: 'invalid command pattern', severity: 'error' },
  PB600: { title: 'gate without choices, or duplicate choice', severity: 'error' },
  PB602: { title: 'after-task with needs, or invalid trigger/on', severity: 'error' },
  PB603: { title: 'invalid duration', severity: 'error' },
  PB604: { title: 'limit out of range', severity: 'error' },
  PB605: { title: 'invalid transition', severity: 'error' },
  PB700: {
    title: 'a step that reaches outside can run with no gate approved before it',
    severity: 'warning',
  },
  PB701: { title: 'policy file that does not fit its schema', severity: 'error' },
  PB702: { title: 'invalid gated pattern in the policy file', severity: 'error' },
  PB800: { title: 'playbook test that does not fit its schema', severity: 'error' },
  PB801: { title: 'playbook test without its playbook', severity: 'error' },
  PB802: { title: 'playbook test of a playbook with errors', severity: 'error' },
  PB803: { title: 'unknown step or after-task in a playbook test', severity: 'error' },
  PB804: { title: 'unknown gate in a playbook test', severity: 'error' },
  PB805: { title: 'outcome the step does not declare, in a playbook test', severity: 'error' },
  PB806: { title: 'choice the gate does not declare, in a playbook test', severity: 'error' },
  PB807: { title: 'unknown output in a playbook test', severity: 'error' },
  PB808: { title: 'value that does not fit its type, in a playbook test', severity: 'error' },
  PB809: { title: 'unknown input in a playbook test', severity: 'error' },
  PB900: { title: 'unused input', severity: 'warning' },
  PB901: { title: 'output declared but never referenced', severity: 'info' },
  PB902: { title: 'need already implied by another need', severity: 'info' },
  PB903: { title: 'suppression comment that silences nothing', severity: 'info' },
} as const satisfies Record<string, CodeInfo>;

export type Code = keyof typeof CODES;
