/**
 * What the page's host asks of it (VS Code: "Run playbook" on an open playbook, the graph view's link to
 * a run): open a playbook's start form, or a run (and its step's sheet) at its address, `#/runs/ID`. A
 * start request that arrives before the cards are loaded waits for them.
 */
import { effect, signal } from '@preact/signals';
import type { HostCommand } from './webview-transport.js';
import { navigate } from './router.js';
import { cardTitleId } from './playbook-list.js';
import { attention, playbooks, say, startingPlaybook } from './store.js';

const wanted = signal<HostCommand | null>(null);

export function hostCommand(command: HostCommand): void {
  wanted.value = command;
}

function focusSoon(find: () => HTMLElement | null | undefined): void {
  requestAnimationFrame(() => {
    const element = find();
    element?.scrollIntoView({ block: 'start' });
    element?.focus();
  });
}

effect(() => {
  const command = wanted.value;
  if (!command) return;
  if (command.type === 'start-playbook') {
    const cards = playbooks.value;
    if (cards === null) return; // not loaded yet: this runs again when they are
    wanted.value = null;
    const card = cards.find((c) => c.id === command.playbook);
    if (!card) {
      say('error', `${command.playbook} is not one of this workspace's playbooks.`);
      return;
    }
    if (!card.canStart) {
      startingPlaybook.value = null;
      say('error', `${card.title} cannot start: ${card.why ?? 'it has errors to fix first.'}`);
      focusSoon(() => document.getElementById(cardTitleId(card.id))?.closest('li'));
      return;
    }
    startingPlaybook.value = card.id;
    // The form's first field, once it is drawn.
    focusSoon(() =>
      document.querySelector<HTMLElement>(
        'form.start-form input, form.start-form textarea, form.start-form select',
      ),
    );
    return;
  }
  wanted.value = null;
  // The same address a link or a reload opens (router.ts), so Back returns to what was open before.
  navigate({ run: command.run, step: command.step ?? null });
  // Its heading takes the focus once it is drawn (narrow, the run list is another view).
  if (!command.step) attention.value = { run: command.run, heading: true };
});
