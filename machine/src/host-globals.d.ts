// The two globals of every JavaScript host the machine runs in (Node 17 and later, the browsers the
// playground supports) that TypeScript's ES2022 library leaves out; tsconfig.json gives this package no
// Node types, so that a Node built-in cannot creep in. `performance.now` is only the default clock of the
// explorer's wall-clock budget (`ExploreOptions.clock`).
declare function structuredClone<T>(value: T): T;
declare const performance: { now(): number };
