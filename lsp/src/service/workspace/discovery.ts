/** Playbook discovery is the compiler's (SPEC §2), shared with `check` and the manager protocol. */
export {
  discoverPlaybooks,
  isDiscoveredPath,
  isPlaybookPath,
  isPlaybookTest,
} from '@kairoku-playbook/compiler';
