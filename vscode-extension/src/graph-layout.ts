/**
 * The playbook graph laid out as the Playbooks panel draws it: the one layout of `@kairoku-playbook/panel`
 * (which the panel and `kairoku-playbook graph` use too), applied to the language server's graph
 * (graph-protocol.ts). The panel package imports nothing of the playbook packages, so the extension still
 * knows nothing of playbooks but what its server tells it.
 */
import { stepCaption, layoutGraph as layoutSteps } from '@kairoku-playbook/panel/layout';
import type {
  GraphLayout as SharedLayout,
  GraphLoop as SharedLoop,
  GraphAfterTask,
  GraphEdge,
  GraphNode,
} from '@kairoku-playbook/panel/layout';
import type { GraphLoop as ServerLoop, PlaybookGraph } from './graph-protocol.js';

export { stepCaption };
export type { GraphAfterTask, GraphEdge, GraphNode };
export type GraphLoop = SharedLoop<ServerLoop>;
export type GraphLayout = SharedLayout<ServerLoop>;

export function layoutPlaybookGraph(graph: PlaybookGraph): GraphLayout {
  return layoutSteps(graph);
}
