/** The one layout of a step graph, for the panel, the extension's graph view and `kairoku-playbook graph`. */
export * from './rows.js';
export * from './graph-layout.js';
export * from './geometry.js';
export * from './bound-text.js';
