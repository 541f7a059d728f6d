import * as path from 'node:path';
import { toolPolicyFor } from '@kairoku-playbook/machine';

/**
 * The role tool policy of `@kairoku-playbook/machine` under this platform's path rules (`node:path`):
 * the machine imports no Node built-in, so the process the runner's agents work in supplies them.
 */
export const decideToolCall = toolPolicyFor(path);
