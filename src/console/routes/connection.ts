import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IngressError } from '../../ingress/errors.js';
import { hasConflicts, toCreate } from '../../targets/setup/plan.js';
import { type ConsoleContext, sendPage } from '../context.js';
import { type ConnectionPageData, connectionPage, type TargetSetupView } from '../pages/connection.js';

// The Connection page: each configured target's setup plan, read from the company on each view by the same
// readPlan as `booksync targets setup <target>`, and applying it (the bookkeeper's POST: the guard checks the
// form's token and the role) by the same apply as `--apply`. One apply per target at a time in this process.

const ApplyForm = z.object({ _csrf: z.string().optional(), target: z.string().min(1).max(100) });

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function connectionRoutes(ctx: ConsoleContext): FastifyPluginAsync {
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    const { targets, targetSetup } = ctx.options;
    const applying = new Set<string>();

    const view = async (target: string): Promise<TargetSetupView> => {
      const setup = await targetSetup?.(target);
      if (!setup) return { target, kind: 'none' };
      try {
        const read = await setup.readPlan();
        try {
          const { company, accounts, plan, file, saved } = read;
          return {
            target,
            kind: 'plan',
            label: setup.label,
            company,
            accounts,
            steps: plan.steps,
            file,
            saved,
          };
        } finally {
          await read.close();
        }
      } catch (error) {
        return { target, kind: 'unreadable', label: setup.label, error: message(error) };
      }
    };

    const render = async (
      request: FastifyRequest,
      reply: FastifyReply,
      outcome: ConnectionPageData['outcome'],
    ) =>
      sendPage(
        reply,
        connectionPage(request.consoleSession!, { targets: await Promise.all(targets.map(view)), outcome }),
      );

    app.get('/console/connection', async (request, reply) => render(request, reply, null));

    typed.post('/console/connection/apply', { schema: { body: ApplyForm } }, async (request, reply) => {
      const { target } = request.body;
      if (!targets.includes(target)) throw new IngressError(400, 'unknown_target', `no target ${target}`);
      const setup = await targetSetup?.(target);
      if (!setup) throw new IngressError(400, 'no_setup', `${target} has no setup plan`);
      const what = `create the missing accounts at ${target} and write TARGET_ACCOUNTS`;
      if (applying.has(target)) {
        ctx.record(request, 'target-setup', what, 'refused: already being applied');
        return render(request, reply, {
          target,
          ok: false,
          lines: ['The plan is already being applied: reload this page in a moment.'],
        });
      }
      applying.add(target);
      const lines: string[] = [];
      try {
        const read = await setup.readPlan();
        try {
          if (hasConflicts(read.plan)) {
            ctx.record(request, 'target-setup', what, 'refused: a role conflicts');
            return render(request, reply, {
              target,
              ok: false,
              lines: ['A role conflicts: nothing was created. Resolve it in the company, then try again.'],
            });
          }
          const missing = toCreate(read.plan).length;
          const code = await setup.apply(read, (line) => lines.push(line));
          ctx.record(
            request,
            'target-setup',
            `${what} (${missing} to create)`,
            code === 0 ? 'applied' : 'applied: the mapping written fails the start-up check',
          );
          return render(request, reply, { target, ok: code === 0, lines });
        } finally {
          await read.close();
        }
      } catch (error) {
        ctx.record(request, 'target-setup', what, `failed: ${message(error)}`);
        return render(request, reply, { target, ok: false, lines: [...lines, message(error)] });
      } finally {
        applying.delete(target);
      }
    });
  };
}
