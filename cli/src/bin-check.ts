// The entry of kairoku-playbook.check.cjs: the commands of main-check.ts (launcher.ts runs it for them).
import { mainCheck } from './main-check.js';
import { start } from './start.js';

start(mainCheck);
