/**
 * File access behind an interface, so the language service runs in tests (and, later, a browser) without
 * a disk: the compiler's workspace file system (what its workspace loader reads through). The server
 * passes the disk's (server/node-file-system.ts); the tests a disk in memory.
 */
export type { WorkspaceFileSystem as PlaybookFileSystem } from '@kairoku-playbook/compiler';
