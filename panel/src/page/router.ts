/**
 * Every run addressable: the page's address names what is open, `#/runs/ID` (a run) and
 * `#/runs/ID/steps/STEP` (its step's sheet). Opening a run or a step writes the address (a new history
 * entry, so Back and Forward move between what was open); a new address (a link, Back, a reload, the
 * host's command) opens what it names. A hash, not a path: serve serves the page at `/` only, and the
 * webview's page has no path of its own.
 */
import { batch, effect } from '@preact/signals';
import { activeRunId, attention, openRun, openStep, startingPlaybook, visibleRuns } from './store.js';

export interface Route {
  run: string | null;
  step: string | null;
}

/** The address of a run, or of its step's sheet. */
export function routeHash(route: Route): string {
  if (!route.run) return '#/';
  const run = `#/runs/${encodeURIComponent(route.run)}`;
  return route.step ? `${run}/steps/${encodeURIComponent(route.step)}` : run;
}

/** What an address names; anything else names nothing. */
export function parseRoute(hash: string): Route {
  const match = /^#\/runs\/([^/]+)(?:\/steps\/([^/]+))?\/?$/.exec(hash);
  if (!match) return { run: null, step: null };
  try {
    return {
      run: decodeURIComponent(match[1]!),
      step: match[2] ? decodeURIComponent(match[2]) : null,
    };
  } catch {
    return { run: null, step: null }; // a malformed escape
  }
}

function apply(route: Route): void {
  batch(() => {
    if (route.run) {
      if (activeRunId.value !== route.run) openRun(route.run, true);
    } else activeRunId.value = null;
    const shown = openStep.value;
    if (!route.step) openStep.value = null;
    else if (shown?.name !== route.step) openStep.value = { name: route.step, attempt: null };
  });
}

/** The next address written replaces the current history entry rather than adding one. */
let replacing = false;

/**
 * What is about to open replaces the current entry in the history: a run reached with the arrow keys
 * (Back should not step through every run passed on the way), the run the page opened on by itself.
 */
export function replaceAddress(): void {
  replacing = true;
}

function write(hash: string): void {
  if (replacing) history.replaceState(history.state, '', hash);
  else location.hash = hash;
  replacing = false;
}

/** Opens what an address names (the host's commands go through here, so they get the same history). */
export function navigate(route: Route): void {
  chosen = true;
  const hash = routeHash(route);
  if (location.hash === hash) apply(route);
  else if (replacing) {
    write(hash); // replaceState fires no hashchange: apply it here
    apply(route);
  } else location.hash = hash; // hashchange applies it
}

let started = false;

/**
 * Whether the person or the host has opened something since the page started (a run, a start form, the
 * list by Back): then a run that waits no longer opens by itself when the list arrives.
 */
let chosen = false;

/** Reads the address now and on every change, and writes it when what is open changes. */
export function startRouter(): void {
  if (started) return;
  started = true;
  apply(parseRoute(location.hash));
  window.addEventListener('hashchange', () => {
    chosen = true;
    apply(parseRoute(location.hash));
  });
  // a start form opened (by a click, or the host's Run playbook) before the list arrived is what to show
  effect(() => {
    if (startingPlaybook.value) chosen = true;
  });
  effect(() => {
    const hash = routeHash({ run: activeRunId.value, step: openStep.value?.name ?? null });
    const now = location.hash || '#/';
    if (now !== hash) write(hash);
    else replacing = false;
  });
}

/**
 * The page opened on no run while one waits for a decision: that run opens and its gate takes the focus.
 * Called once the runs are loaded; not when the person or the host opened something meanwhile.
 */
export function openWaitingFirst(): void {
  if (activeRunId.value || chosen) return;
  const waiting = visibleRuns.value.find((r) => r.waiting > 0);
  if (!waiting) return;
  attention.value = { run: waiting.id, heading: false };
  replaceAddress(); // Back leaves the page rather than returning to "no run"
  navigate({ run: waiting.id, step: null });
}
