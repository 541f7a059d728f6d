/** The page's entry: draws the panel, loads what the server has, and listens for changes. */
import { render } from 'preact';
import { App } from './app.js';
import { connectEvents, loadPlaybooks, loadRuns } from './store.js';

render(<App />, document.getElementById('app')!);
void loadPlaybooks(); // (it catches its own failure and shows it in the status line)
void loadRuns(); // (it catches its own failure and shows it in the status line)
connectEvents();
