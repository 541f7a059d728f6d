/** The playbooks both VS Code test files write into their workspaces. */

/** A misspelt step in needs (PB200), an unknown input in an expression (PB202), an unused input (PB900). */
export const BROKEN = `version: 1
id: broken
title: A playbook with mistakes

inputs:
  task:
    type: string
    description: What to build
  strict:
    type: boolean
    default: false

steps:
  plan:
    role: planner
    prompt: 'Plan this change: \${{ inputs.tsk }}'
    outputs:
      plan: string

  implement:
    needs: [plna]
    role: implementer
    prompt: 'Implement: \${{ steps.plan.outputs.plan }}'
`;
