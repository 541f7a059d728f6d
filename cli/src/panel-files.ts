import { assetText } from './assets.js';

/** The panel's files by the name the page loads them under, for `serve`. */
export function panelFiles(): Record<string, string> {
  return {
    'index.html': assetText('panelIndex'),
    'panel.js': assetText('panelScript'),
    'panel.css': assetText('panelStyle'),
    'favicon.svg': assetText('panelIcon'),
  };
}
