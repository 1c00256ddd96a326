import { EVENT_CATEGORIES, OBJECT_TYPES } from '@booksync/service-contract/schemas/index';
import { describe, expect, it } from 'vitest';
import { IngressError, toErrorReply } from '../../src/ingress/errors.js';
import { ROUTING_TABLE, routeEvent } from '../../src/ingress/routing.js';
import { UNROUTED_EVENTS_KEPT, UnroutedEvents } from '../../src/ingress/unrouted-events.js';

// The pure parts; the HTTP and Temporal behaviour is covered in webhooks.test.ts.

describe('routeEvent', () => {
  it('routes every category of 6.5', () => {
    for (const category of EVENT_CATEGORIES) expect(routeEvent(category, 'x')).toBeDefined();
    expect(Object.keys(ROUTING_TABLE).sort()).toEqual([...OBJECT_TYPES].sort());
  });

  it('names, for every object type, a workflow the worker registers (the flow contracts declare them)', async () => {
    const registered = (await import('../../src/flows/workflows.js')) as Record<string, unknown>;
    for (const route of Object.values(ROUTING_TABLE)) {
      expect(typeof registered[route.workflowType], route.workflowType).toBe('function');
    }
  });

  it('sends check events to the bill payment workflow of the id they carry', () => {
    expect(routeEvent('check.deposited', 'bp_1')).toEqual({
      workflowType: 'billPayment',
      workflowId: 'bill-payment-bp_1',
      args: [{ billPaymentId: 'bp_1' }],
    });
  });

  it('routes nothing for a category outside 6.5, even with a known prefix', () => {
    expect(routeEvent('payment.disputed', 'p_1')).toBeUndefined();
    expect(routeEvent('invoice.created', 'i_1')).toBeUndefined();
    expect(routeEvent('toString', 'x')).toBeUndefined();
  });
});

describe('UnroutedEvents', () => {
  it('keeps the last 100, oldest first', () => {
    const ring = new UnroutedEvents();
    for (let i = 0; i < UNROUTED_EVENTS_KEPT + 5; i++) {
      ring.record({
        eventId: `e${i}`,
        category: 'x.y',
        objectType: 'payment',
        objectId: 'o',
        createdAt: 'c',
        receivedAt: 'r',
      });
    }
    const ids = ring.list().map((e) => e.eventId);
    expect(ids).toHaveLength(100);
    expect(ids[0]).toBe('e5');
    expect(ids.at(-1)).toBe('e104');
  });
});

describe('toErrorReply', () => {
  it('keeps an IngressError as is', () => {
    expect(toErrorReply(new IngressError(401, 'timestamp_too_old', 'old'))).toEqual({
      statusCode: 401,
      body: { error: 'old', code: 'timestamp_too_old' },
    });
  });

  it('never shows the message of an unexpected failure', () => {
    expect(toErrorReply(new Error('connect ECONNREFUSED secret-host'))).toEqual({
      statusCode: 500,
      body: { error: 'internal error', code: 'internal_error' },
    });
    expect(toErrorReply('thrown string')).toMatchObject({ statusCode: 500 });
  });
});
