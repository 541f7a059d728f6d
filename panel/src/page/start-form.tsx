/** The start form of a playbook, built from its typed inputs and checked with its input schema. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type {
  CurrentAgentAnswer,
  InputField,
  PlaybookCard,
  StartAnswer,
  StartRequest,
} from '@kairoku-playbook/protocol';
import { fieldOfPointer, initialValues, readForm } from '../form/fields.js';
import type { RawValue } from '../form/fields.js';
import type { FieldError } from '../form/validate.js';
import { RefusedError, api } from './api.js';
import { ManagerChoice, useCurrentAgent } from './manager-choice.js';
import { RunBound } from './run-bound.js';
import type { ManagerPick } from './manager-choice.js';
import { attention, loadRuns, openRun, refusalText, say, startingPlaybook } from './store.js';

const idOf = (card: PlaybookCard, field: string) => `in-${card.id.replace(/[^A-Za-z0-9]/g, '-')}-${field}`;

type Common = Record<string, string | undefined>;

/** The control an input's type wants: a checkbox, a select, a password field, a text area or a field. */
function Control(props: {
  field: InputField;
  value: RawValue;
  common: Common;
  onChange: (value: RawValue) => void;
}) {
  const { field, value, common } = props;
  const text = typeof value === 'string' ? value : '';
  const onText = (event: Event) => props.onChange((event.currentTarget as HTMLInputElement).value);
  if (field.type === 'boolean')
    return (
      <input
        {...common}
        type="checkbox"
        checked={value === true}
        onChange={(event) => props.onChange((event.currentTarget as HTMLInputElement).checked)}
      />
    );
  if (field.type === 'enum')
    return (
      <select {...common} value={text} onChange={onText}>
        {(!field.required || field.default === undefined) && <option value="">(none)</option>}
        {(field.choices ?? []).map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    );
  if (field.secret)
    return <input {...common} type="password" autocomplete="off" value={text} onInput={onText} />;
  if (field.type === 'list' || field.type === 'object' || field.type === 'any' || field.multiline)
    return <textarea {...common} rows={field.multiline ? 4 : 3} value={text} onInput={onText} />;
  return (
    <input
      {...common}
      type="text"
      inputMode={field.type === 'integer' ? 'numeric' : field.type === 'number' ? 'decimal' : undefined}
      value={text}
      onInput={onText}
    />
  );
}

function Field(props: {
  card: PlaybookCard;
  field: InputField;
  value: RawValue;
  error: string | undefined;
  onChange: (value: RawValue) => void;
}) {
  const { card, field, value, error } = props;
  const id = idOf(card, field.name);
  const common = {
    id,
    name: field.name,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-required': field.required ? ('true' as const) : undefined,
    'aria-describedby':
      [error ? `${id}-error` : '', field.description ? `${id}-help` : ''].join(' ').trim() || undefined,
  };
  const control = <Control field={field} value={value} common={common} onChange={props.onChange} />;
  const hint =
    field.type === 'list'
      ? 'one per line'
      : field.type === 'object'
        ? 'JSON'
        : field.secret
          ? 'secret: never shown again'
          : '';
  return (
    <div class={`field type-${field.type}${error ? ' invalid' : ''}`}>
      <label for={id}>
        {field.title ?? field.name}
        {field.required && (
          <span class="required" aria-hidden="true">
            {' '}
            *
          </span>
        )}
        {hint && <span class="hint"> ({hint})</span>}
      </label>
      {control}
      {field.description && (
        <p class="help" id={`${id}-help`}>
          {field.description}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {field.title ?? field.name} {error}
        </p>
      )}
    </div>
  );
}

interface StartOptionsProps {
  card: PlaybookCard;
  options: { newAgent: boolean; worktree: boolean };
  setOptions: (options: { newAgent: boolean; worktree: boolean }) => void;
  agent: { provider: string; setProvider: (v: string) => void; model: string; setModel: (v: string) => void };
  errorOf: (name: string) => string | undefined;
  optionId: (name: string) => string;
  manager: {
    current: CurrentAgentAnswer | undefined;
    pick: ManagerPick;
    setPick: (pick: ManagerPick) => void;
  };
}

/** New agent, new worktree, the provider and model: what the backend offers. */
function StartOptions({ card, options, setOptions, agent, errorOf, optionId, manager }: StartOptionsProps) {
  const agents = card.startOptions.agents;
  const { provider, setProvider, model, setModel } = agent;
  if (!(card.startOptions.newAgent || card.startOptions.worktree || agents)) return null;
  return (
    <fieldset class="options">
      <legend>Start options</legend>
      {card.startOptions.currentAgent && <ManagerChoice card={card} {...manager} />}
      {card.startOptions.newAgent && !card.startOptions.currentAgent && (
        <label>
          <input
            type="checkbox"
            checked={options.newAgent}
            onChange={(e) =>
              setOptions({ ...options, newAgent: (e.currentTarget as HTMLInputElement).checked })
            }
          />{' '}
          New agent
        </label>
      )}
      {card.startOptions.worktree && (
        <label>
          <input
            type="checkbox"
            checked={options.worktree}
            onChange={(e) =>
              setOptions({ ...options, worktree: (e.currentTarget as HTMLInputElement).checked })
            }
          />{' '}
          New worktree
        </label>
      )}
      {agents && (
        <>
          <OptionText
            id={optionId('provider')}
            label="Provider"
            help="for steps whose role names none"
            value={provider}
            error={errorOf('options/provider')}
            onChange={setProvider}
          />
          <OptionText
            id={optionId('model')}
            label="Model"
            help="for steps whose role names none; empty: the provider's default"
            value={model}
            error={errorOf('options/model')}
            onChange={setModel}
          />
        </>
      )}
    </fieldset>
  );
}

/** The form's errors that have no field of their own, and Start run / Close form. */
function FormEnd(props: { card: PlaybookCard; errors: FieldError[]; general: FieldError[]; busy: boolean }) {
  const { card, errors, general, busy } = props;
  return (
    <>
      {general.map((e) => (
        <p class="form-error" role="alert" key={e.message}>
          {e.message}
        </p>
      ))}
      {errors.length > 0 && general.length === 0 && (
        <p class="form-error" role="alert">
          {errors.length === 1 ? 'One field needs' : `${errors.length} fields need`} fixing before the run can
          start.
        </p>
      )}
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          Start run
        </button>
        <button
          type="button"
          onClick={() => {
            startingPlaybook.value = null;
            requestAnimationFrame(() =>
              document
                .querySelector<HTMLButtonElement>(`button[aria-label="Start ${CSS.escape(card.title)}"]`)
                ?.focus(),
            );
          }}
        >
          Close form
        </button>
      </div>
    </>
  );
}

/** The request: the inputs, the options turned on, the provider and model where they differ from serve's. */
function startRequest(
  card: PlaybookCard,
  inputs: Record<string, unknown>,
  options: { newAgent: boolean; worktree: boolean; currentAgent?: string },
  agent: { provider: string; model: string },
): StartRequest {
  const { provider, model } = agent;
  const agents = card.startOptions.agents;
  const chosen: Record<string, boolean | string> = Object.fromEntries(
    Object.entries(options).filter(([, on]) => on !== false && on !== undefined),
  );

  if (agents && provider.trim() !== agents.defaultProvider) chosen.provider = provider.trim();
  if (agents && model.trim() && model.trim() !== (agents.defaultModel ?? '')) chosen.model = model.trim();
  return { playbook: card.id, inputs, ...(Object.keys(chosen).length ? { options: chosen } : {}) };
}

/**
 * The options with the manager picked (paseo): "a new agent" is the pick, not the checkbox, and the
 * current agent is named by its id.
 */
function withManager(
  card: PlaybookCard,
  options: { newAgent: boolean; worktree: boolean },
  manager: ReturnType<typeof useCurrentAgent>,
): { newAgent: boolean; worktree: boolean; currentAgent?: string } {
  if (!card.startOptions.currentAgent) return options;
  const currentAgent = manager.pick === 'current' ? manager.current?.agent?.id : undefined;
  return { ...options, newAgent: manager.pick === 'new', ...(currentAgent ? { currentAgent } : {}) };
}

/** The run started: the form goes, the run opens and takes the focus, its first gate will when it opens. */
async function started(answer: StartAnswer): Promise<void> {
  startingPlaybook.value = null;
  say('info', [`Started ${answer.run.title}.`, ...answer.warnings].join(' '));
  await loadRuns();
  openRun(answer.run.id);
  attention.value = { run: answer.run.id, heading: true };
}

/** A refused start as the form shows it: beside the field the refusal names, else below the form. */
function refusedErrors(error: unknown): FieldError[] {
  const pointer = error instanceof RefusedError ? error.refusal.field : undefined;
  const field = pointer?.startsWith('/options/') ? pointer.slice(1) : fieldOfPointer(pointer);
  return [{ field: field ?? '', message: refusalText(error) }];
}

export function StartForm({ card }: { card: PlaybookCard }) {
  const [values, setValues] = useState<Record<string, RawValue>>(() => initialValues(card.inputs));
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [options, setOptions] = useState({ newAgent: false, worktree: false });
  const manager = useCurrentAgent(card);
  // The provider and model of the run's steps that name none, where the backend lets them be chosen:
  // serve's defaults to start with; sent only when changed.
  const agents = card.startOptions.agents;
  const [provider, setProvider] = useState(agents?.defaultProvider ?? '');
  const [model, setModel] = useState(agents?.defaultModel ?? '');
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  // The form opens where its Start button was: focus moves into it, so the keyboard follows.
  useEffect(() => form.current?.querySelector<HTMLElement>('input, textarea, select, button')?.focus(), []);
  const errorOf = (name: string) => errors.find((e) => e.field === name)?.message;

  // Errors shown beside a field: an input's, or the provider's or model's where the form has them;
  // any other (a refusal of the whole start, an option with no field of its own) is shown below.
  const besideOption = (field: string) =>
    agents !== undefined && (field === 'options/provider' || field === 'options/model');
  const general = errors.filter(
    (e) => !card.inputs.some((f) => f.name === e.field) && !besideOption(e.field),
  );
  const optionId = (name: string) => `${idOf(card, 'option')}-${name}`;
  const focusFirstError = (found: FieldError[]) => focusFirst(card, found, besideOption, optionId);

  const submit = async (event: Event) => {
    event.preventDefault();
    const { inputs, errors: found } = readForm(card.inputs, values, card.inputSchema);
    if (agents) found.push(...agentErrors(provider, model));
    setErrors(found);
    if (found.length) {
      focusFirstError(found);
      return;
    }
    setBusy(true);
    try {
      await started(
        await api.start(startRequest(card, inputs, withManager(card, options, manager), { provider, model })),
      );
    } catch (error) {
      const refused = refusedErrors(error);
      setErrors(refused);
      focusFirstError(refused);
    } finally {
      setBusy(false);
    }
  };

  const titleId = `start-${card.id.replace(/[^A-Za-z0-9]/g, '-')}`;
  return (
    // (submit shows its own failure: a refusal beside its field, or in the form)
    <form class="start-form" ref={form} onSubmit={(e) => void submit(e)} noValidate aria-labelledby={titleId}>
      <h3 id={titleId}>Start {card.title}</h3>
      {card.inputs.length === 0 && <p>This playbook takes no inputs.</p>}
      {card.inputs.map((field) => (
        <Field
          key={field.name}
          card={card}
          field={field}
          value={values[field.name] ?? ''}
          error={errorOf(field.name)}
          onChange={(value) => setValues({ ...values, [field.name]: value })}
        />
      ))}
      <StartOptions
        card={card}
        options={options}
        setOptions={setOptions}
        agent={{ provider, setProvider, model, setModel }}
        errorOf={errorOf}
        optionId={optionId}
        manager={manager}
      />
      <RunBound card={card} />
      <FormEnd card={card} errors={errors} general={general} busy={busy} />
    </form>
  );
}

/** Focuses the field of the first error that has one (an input, or the provider or model). */
function focusFirst(
  card: PlaybookCard,
  found: FieldError[],
  besideOption: (field: string) => boolean,
  optionId: (name: string) => string,
): void {
  requestAnimationFrame(() => {
    const first = found.find((e) => card.inputs.some((f) => f.name === e.field) || besideOption(e.field));
    if (!first) return;
    const id = first.field.startsWith('options/')
      ? optionId(first.field.slice('options/'.length))
      : idOf(card, first.field);
    document.getElementById(id)?.focus();
  });
}

/** A provider id as Paseo spells them, and a model name: what the server checks, checked here first. */
function agentErrors(provider: string, model: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(provider.trim()))
    errors.push({
      field: 'options/provider',
      message: 'must be a provider id: letters, digits, . _ - (claude, codex, …)',
    });
  // eslint-disable-next-line no-control-regex
  if (model.trim() && !/^[^\s\u0000-\u001f\u007f]+$/.test(model.trim()))
    errors.push({ field: 'options/model', message: 'must be one word: a model name has no spaces' });
  return errors;
}

/** A start option typed in (provider, model), labelled, with its error beside it. */
function OptionText(props: {
  id: string;
  label: string;
  help: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  const described = [`${props.id}-help`, ...(props.error ? [`${props.id}-error`] : [])].join(' ');
  return (
    <div class={`field${props.error ? ' invalid' : ''}`}>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="text"
        value={props.value}
        spellcheck={false}
        autocomplete="off"
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={described}
        onInput={(e) => props.onChange((e.currentTarget as HTMLInputElement).value)}
      />
      <p class="help" id={`${props.id}-help`}>
        {props.help}
      </p>
      {props.error && (
        <p class="field-error" id={`${props.id}-error`}>
          {props.label} {props.error}
        </p>
      )}
    </div>
  );
}
