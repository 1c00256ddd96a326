// The webhook ingress: verified deliveries in, Temporal signals out (design overview, "Ingress contract").
export { type ErrorBody, IngressError } from './errors.js';
export { type RunningIngress, type StartIngressOptions, startIngress } from './main.js';
export { ROUTING_TABLE, type RouteRule, routeEvent, type WorkflowRoute } from './routing.js';
export {
  createIngress,
  createIngressApps,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_READINESS_TIMEOUT_MS,
  DEFAULT_SIGNAL_TIMEOUT_MS,
  type IngressApp,
  type IngressApps,
  type IngressOptions,
} from './server.js';
export { UNROUTED_EVENTS_KEPT, type UnroutedEvent } from './unrouted-events.js';
