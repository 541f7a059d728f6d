/** The machine's test helpers (`Run`, `playbook`, `compile`, …), which the runtime's tests share. */
export * from '../../machine/test/helpers.js';
