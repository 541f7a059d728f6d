// The program's entry, every command (kairoku-playbook.bundle.cjs; launcher.ts says when the smaller
// bin-check.ts runs instead).
import { main } from './main.js';
import { start } from './start.js';

start(main);
