import type { FastifyInstance } from 'fastify';

/** One route the HTTP server serves: upper-case method and Fastify's URL pattern (`/api/v1/records/:recordId`). */
export interface ServedRoute {
  method: string;
  url: string;
}

const served = new WeakMap<FastifyInstance, ServedRoute[]>();

/**
 * Starts recording every route registered on `fastify` from now on (Nest's controllers, the ops
 * endpoints, the docs), so that {@link servedRoutes} can list what the server really answers: the
 * OpenAPI coverage test compares it with the document. Call before the routes are registered.
 */
export function recordServedRoutes(fastify: FastifyInstance): void {
  const routes: ServedRoute[] = [];
  served.set(fastify, routes);
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method: method.toUpperCase(), url: route.url });
  });
}

/** The routes recorded on `fastify` ({@link recordServedRoutes}); HEAD twins of GET routes included. */
export function servedRoutes(fastify: FastifyInstance): readonly ServedRoute[] {
  const routes = served.get(fastify);
  if (!routes) throw new Error('servedRoutes: recordServedRoutes was not called on this Fastify instance');
  return routes;
}
