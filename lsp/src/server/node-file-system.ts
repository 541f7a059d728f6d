/** The language service's file system on the real disk: the compiler's (bounded reads: a FIFO would block the server, /dev/zero would fill its memory). */
import { diskFileSystem } from '@kairoku-playbook/compiler/disk';
import type { PlaybookFileSystem } from '../service/workspace/file-system.js';

export const nodeFileSystem: PlaybookFileSystem = diskFileSystem;
