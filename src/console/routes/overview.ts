import type { FastifyPluginAsync } from 'fastify';
import { type ConsoleContext, sendPage } from '../context.js';
import { oauthConnectionStates } from '../oauth-connections.js';
import { overviewPage } from '../pages/overview.js';
import {
  certificateRuns,
  flowsNeedingAttention,
  lastReconciliation,
  targetConnection,
} from '../temporal-reads.js';

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** A link into the Temporal Web UI for a workflow, when booksync knows where the UI is. */
export function workflowLinker(ctx: ConsoleContext): ((workflowId: string) => string) | null {
  const ui = ctx.options.temporalUiUrl;
  if (!ui) return null;
  const ns = encodeURIComponent(ctx.options.namespace ?? 'default');
  return (workflowId) => `${ui}/namespaces/${ns}/workflows/${encodeURIComponent(workflowId)}`;
}

export function overviewRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/console', async (request, reply) => {
      const { ledger, targetIndex, targets, temporalClient: client } = ctx.options;
      const [trial, closedThrough, targetRows, attention, certificates, reconciliation, oauth] =
        await Promise.all([
          ledger.trialBalance(),
          ledger.booksClosedThrough(),
          Promise.all(
            targets.map(async (target) => ({
              // The same summary `booksync targets status` prints.
              summary: await targetIndex.summary(target),
              connection: await targetConnection(client, target),
            })),
          ),
          flowsNeedingAttention(client).catch((error: unknown) => ({ error: message(error) })),
          certificateRuns(client, 5).catch((error: unknown) => ({ error: message(error) })),
          lastReconciliation(client).catch((error: unknown) => ({ error: message(error) })),
          oauthConnectionStates(ctx.options.oauthConnections, ctx.now().getTime()),
        ]);
      const lastCertificate =
        'error' in certificates
          ? certificates
          : (certificates.find((r) => r.certificate) ?? certificates[0] ?? null);
      return sendPage(
        reply,
        overviewPage(request.consoleSession!, {
          trial,
          closedThrough,
          targets: targetRows.map((row) => ({ ...row, oauth: oauth.get(row.summary.target) })),
          attention,
          lastCertificate,
          reconciliation,
          workflowLink: workflowLinker(ctx),
        }),
      );
    });
  };
}
