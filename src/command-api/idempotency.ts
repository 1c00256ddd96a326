import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { IngressError } from '../ingress/errors.js';
import { type CommandRouteName, commandRoutes } from './contract.js';
import { CommandKeyStore, requestFingerprint } from './idempotency-keys.js';
import type { CommandAnswer } from './outcome.js';

export interface IdempotencyOptions {
  /** The command API key: its hash scopes the keys, so another organization's API never sees them. */
  apiKey: string;
  /** SQLite file where Idempotency-Keys are bound to their requests. Default: in memory, this process only. */
  commandKeysFile?: string;
}

/** A route's Idempotency-Key binding, set in its `config.commandKey`. */
export interface CommandKeySpec {
  route: CommandRouteName;
  /** Whether the body is part of the request the key is bound to (commands without one bind null). */
  withBody: boolean;
}

/** The command the preHandler bound to its key. */
export interface KeyedCommand {
  commandId: string;
  key: string | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    commandKey?: CommandKeySpec;
  }
  interface FastifyRequest {
    keyedCommand: KeyedCommand | null;
  }
  interface FastifyReply {
    /** Sends a command's answer, and keeps it for the key when it is final (not a 202, not a 5xx). */
    sendOutcome(answer: CommandAnswer): FastifyReply;
  }
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The command id: the Idempotency-Key header when it is a uuid, a uuid derived from it otherwise (so any
 * client key works, and the same key always gives the same id), or a fresh uuid when none was given.
 * The workflow drops a command id it has seen, so a retried request does nothing twice.
 */
export function commandIdFrom(header: string | string[] | undefined): string {
  if (header === undefined) return randomUUID();
  if (Array.isArray(header) || header.length === 0 || header.length > 255) {
    throw new IngressError(
      400,
      'invalid_idempotency_key',
      'Idempotency-Key must be one value of 1 to 255 characters',
    );
  }
  if (uuidPattern.test(header)) return header.toLowerCase();
  const hex = createHash('sha256').update(header).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The command id the preHandler bound, in a route declared with `config.commandKey`. */
export function keyedCommandId(request: FastifyRequest): string {
  if (!request.keyedCommand) throw new Error(`${request.routeOptions.url} declares no config.commandKey`);
  return request.keyedCommand.commandId;
}

/**
 * Idempotency-Keys of the routes that declare `config.commandKey`: a preHandler (after validation, before
 * the handler) binds the key to this request (method, route, parameters, body). The same key with the same
 * request answers the first final answer again without running the handler; with another request it is
 * refused (422) and changes nothing. Commands that create money records require one, so a retry after a lost
 * answer can never record the money twice. fastify-plugin: the hook and decorators serve the scope that
 * registers it.
 */
export const idempotency = fp<IdempotencyOptions>(
  async (app, options) => {
    const keys = CommandKeyStore.open(options.commandKeysFile);
    app.addHook('onClose', async () => keys.close());
    const scope = createHash('sha256').update(options.apiKey).digest('hex').slice(0, 16);

    app.decorateRequest('keyedCommand', null);
    app.decorateReply('sendOutcome', function (this: FastifyReply, answer: CommandAnswer) {
      const command = this.request.keyedCommand;
      if (command?.key && answer.status !== 202 && answer.status < 500)
        keys.answer(scope, command.key, answer);
      // The body is checked against the route's response schema by the serializer.
      return this.status(answer.status).send(answer.body);
    });

    app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
      const spec = request.routeOptions.config.commandKey;
      if (!spec) return;
      const header = request.headers['idempotency-key'];
      if (header === undefined) {
        if ('moneyKey' in commandRoutes[spec.route]) {
          throw new IngressError(
            400,
            'idempotency_key_required',
            'this command records money: send an Idempotency-Key header (a new one per command, the same one when you retry it)',
          );
        }
        request.keyedCommand = { commandId: commandIdFrom(undefined), key: null };
        return;
      }
      const commandId = commandIdFrom(header);
      const key = String(header);
      const body = spec.withBody ? request.body : null;
      const fingerprint = requestFingerprint(
        request.method,
        request.routeOptions.url ?? '',
        request.params,
        body,
      );
      const claim = keys.claim(scope, key, fingerprint);
      if (claim.state === 'reused') {
        throw new IngressError(
          422,
          'idempotency_key_reused',
          'this Idempotency-Key came with another request before; a new command needs a new key',
        );
      }
      if (claim.state === 'same' && claim.answer) {
        return reply.status(claim.answer.status).send(claim.answer.body);
      }
      request.keyedCommand = { commandId, key };
    });
  },
  { name: 'command-api-idempotency' },
);
