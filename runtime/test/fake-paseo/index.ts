/** Moved to the test kit (test/kit/fake-paseo.ts); this re-export goes when the tests import the kit. */
export * from '../../../test/kit/fake-paseo.js';
