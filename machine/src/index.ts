/**
 * `@kairoku-playbook/machine`: the playbook's rules, pure (SPEC §6). Run state and `createRun`, the
 * transition function `advance`, events and effects, input and output schema checks, due timeouts,
 * expressions and templates, secret masking, the role tool policy, and the explorer behind `explore` and
 * `check --explore`. No I/O, no timers, no clock of its own, no Node built-in: the runtime, the language
 * server and the playground's page all run these same modules. Imports only the compiler and the grammar
 * of this repository (test/layering.test.ts).
 */
export * from './core/create-run.js';
export * from './core/effects.js';
export * from './core/events.js';
export * from './core/inputs.js';
export * from './core/pvec.js';
export * from './core/representative.js';
export * from './core/schemas.js';
export * from './core/secret-mask.js';
export * from './core/state.js';
export * from './core/terminal-text.js';
export * from './core/timeouts.js';
export * from './core/transition.js';
export * from './core/view.js';
export * from './expr/evaluate.js';
export * from './policy/index.js';
export * from './explore/index.js';
export * from './coverage/index.js';
