// mcp's --help, apart from the command so that `main` answers it without loading the command's module.
import { PASEO_FLAGS_HELP } from './paseo-options.js';

export const MCP_HELP = `Usage: kairoku-playbook mcp [--workspace DIR] [--agents sim|external] [--scenario FILE] [--with-step-tools]
       kairoku-playbook mcp --agents paseo [--paseo-host HOST:PORT] [--manager-agent ID] [--workspace DIR]
                            [--paseo-password-file F] [--paseo-provider NAME] [--paseo-model NAME]
                            [--managed-run RUN]
       kairoku-playbook mcp --step-agent --run RUN --step STEP --attempt N   (the token in $KAIROKU_STEP_TOKEN)

Serves the manager protocol over MCP on stdin and stdout, so any MCP-capable agent can be the
Playbook Manager: list_playbooks, start_playbook, start_step, complete_step, request_gate, resume,
nudge_step, get_run, list_runs, cancel_run, restart_run, validate_playbooks. The manager owns the
judgment; the runtime refuses what the playbook does not allow. Runs are saved under
$KAIROKU_PLAYBOOK_HOME/runs (default ~/.kairoku-playbook/runs) after every change.

Options:
  --workspace DIR      the workspace whose playbooks can be started (default: the current folder)
  --agents sim         started steps are sim agents: each reports at once, as --scenario scripts
                       or with its first declared outcome and generated outputs (the default)
  --agents external    nothing reports by itself: a started step waits for report_step_result
                       from a step agent's server (start_step returns its command line)
  --agents paseo       started steps are agents of a Paseo daemon, subagents of the manager agent,
                       in the run's workspace or worktree; their reports reach the run as they
                       come, and the manager agent is woken with a message while it is idle
                       (docs/paseo.md)
${PASEO_FLAGS_HELP}
  --manager-agent ID   the Paseo agent this server serves (default: $PASEO_AGENT_ID, which Paseo
                       sets in its agents' environment): step agents are labelled its children
                       (paseo.parent-agent-id) and it is sent the wake-ups; without one, wake-ups
                       are only the events of tool results
  --managed-run RUN    the run serve made this server's agent the manager of (serve's "Start on a
                       new agent" writes it): without --manager-agent or $PASEO_AGENT_ID, the
                       manager is the Paseo agent the run names, once serve has recorded it
  --scenario FILE      a scenario scripting the sim agents (a playbook test works too: see
                       docs/reference.md, "Scenarios and playbook tests"); gates it decides are
                       decided as if in the panel, others wait for resume
  --with-step-tools    also expose report_step_result on this server (tests and harnesses that
                       play the step agents; never give such a server to a step agent)
  --step-agent         a step agent's server: only report_step_result, bound to --run, --step and
                       --attempt; $KAIROKU_STEP_TOKEN must hold the token start_step gave for that
                       attempt (start_step's stepAgent.env sets it; --token TOKEN works too, but
                       shows the token to every user of the machine)
  -h, --help           this help`;
