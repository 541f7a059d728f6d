/**
 * Who manages a run started on Paseo (seed 000): the workspace's current agent — the person's own
 * agent, the default Start when there is one — a new agent made for the run, or serve itself (its
 * autopilot starts the steps; the gates wait for the panel).
 */
import { useEffect, useState } from 'preact/hooks';
import type { CurrentAgentAnswer, PlaybookCard } from '@kairoku-playbook/protocol';
import { api } from './api.js';

export type ManagerPick = 'current' | 'new' | 'serve';

/** The workspace's current agent, asked once when the form opens (when the backend offers it). */
export function useCurrentAgent(card: PlaybookCard): {
  current: CurrentAgentAnswer | undefined;
  pick: ManagerPick;
  setPick: (pick: ManagerPick) => void;
} {
  const offered = card.startOptions.currentAgent === true;
  const [current, setCurrent] = useState<CurrentAgentAnswer | undefined>(undefined);
  const [pick, setPick] = useState<ManagerPick>('serve');
  useEffect(() => {
    if (!offered) return;
    let live = true;
    api.currentAgent().then(
      (answer) => {
        if (!live) return;
        setCurrent(answer);
        // The default Start is the current agent's, unless it may lack the tools.
        if (answer.agent && answer.warning === undefined) setPick('current');
      },
      (error: unknown) => live && setCurrent({ why: (error as Error).message }),
    );
    return () => {
      live = false;
    };
  }, [offered]);
  return { current, pick, setPick };
}

/** The radios: the current agent (named, and whether it is busy), a new agent, serve itself. */
export function ManagerChoice(props: {
  card: PlaybookCard;
  current: CurrentAgentAnswer | undefined;
  pick: ManagerPick;
  setPick: (pick: ManagerPick) => void;
}) {
  const { card, current, pick, setPick } = props;
  const name = `manager-${card.id.replace(/[^A-Za-z0-9]/g, '-')}`;
  const agent = current?.agent;
  const radio = (value: ManagerPick, label: string, disabled = false) => (
    <label>
      <input
        type="radio"
        name={name}
        value={value}
        checked={pick === value}
        disabled={disabled}
        onChange={() => setPick(value)}
      />{' '}
      {label}
    </label>
  );
  return (
    <div class="manager-choice" role="radiogroup" aria-label="Managed by">
      {radio(
        'current',
        agent
          ? `Your current agent: ${agent.title} (${agent.provider}${agent.busy ? ', busy: the kickoff waits for the end of its turn' : ''})`
          : current
            ? 'Your current agent: none'
            : 'Your current agent: looking…',
        !agent,
      )}
      {(current?.warning ?? (!agent && current?.why)) && (
        <p class="hint">{current?.warning ?? current?.why}</p>
      )}
      {card.startOptions.newAgent && radio('new', 'A new agent')}
      {radio('serve', 'serve itself (it starts the steps; gates wait for you)')}
    </div>
  );
}
