import { RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import type { z } from 'zod';
import { ROUTE_KIND_OPTIONS, type RouteKindOptions } from '../http/route-kinds';
import { RETURNS, type ReturnsDeclaration } from './returns.decorator';

/** One HTTP route of the application's Nest controllers, with what the OpenAPI document needs of it. */
export interface RouteEntry {
  /** Lower-case HTTP method: `get`, `post`, `patch`, `delete`, ... */
  method: string;
  /** OpenAPI path template: `/api/v1/records/{recordId}/recall`. */
  path: string;
  /** `Controller.handler`, the operation id's source. */
  handlerName: string;
  /** The route's tag: the first `@ApiTags` of the handler, else of the controller, else the controller's name without `Controller`. */
  tag: string;
  /** The success status: the route's `@HttpCode`, else Nest's default (201 for POST, 200 otherwise). */
  status: number;
  /** The route's kind and options (./../http/route-kinds.ts); undefined for a route without a kind. */
  kind?: RouteKindOptions;
  /** The success declaration (`@Returns`); undefined for a route without one. */
  returns?: ReturnsDeclaration;
  /** The body's zod schema (from the `@Body()` DTO or `@Returns({ request })`) and whether it may be left out. */
  body?: { schema: z.ZodType; required: boolean };
  /** The query string's zod object schema (from the `@Query()` DTO or `@Returns({ request })`). */
  query?: z.ZodObject;
}

type ZodDtoClass = { isZodDto?: boolean; schema?: z.ZodType; omittable?: boolean };
/** A controller class. */
type ControllerClass = abstract new (...args: never[]) => unknown;
const API_TAGS = 'swagger/apiUseTags';

/**
 * Every route of the application's Nest controllers, read from Nest's own route metadata (the same
 * metadata the router and the request pipe use: method, path, `@HttpCode`, `@Body()`/`@Query()` DTO
 * classes, route kind, `@Returns`), in module and declaration order. Call after `NestFactory.create`.
 */
export function routeTable(app: INestApplicationContext): RouteEntry[] {
  return routeTableOf(app.get(ModulesContainer));
}

/** {@link routeTable} from Nest's module container (injectable as `ModulesContainer`, e.g. by a controller). */
export function routeTableOf(modules: ModulesContainer): RouteEntry[] {
  const controllers = new Set<ControllerClass>();
  for (const module of modules.values()) {
    for (const wrapper of module.controllers.values()) if (typeof wrapper.metatype === 'function') controllers.add(wrapper.metatype as ControllerClass);
  }
  return [...controllers].flatMap(routesOf);
}

function routesOf(controller: ControllerClass): RouteEntry[] {
  const prefix = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
  const controllerTags = Reflect.getMetadata(API_TAGS, controller) as string[] | undefined;
  const prototype = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype).flatMap((name) => {
    const handler = prototype[name];
    if (name === 'constructor' || typeof handler !== 'function') return [];
    const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
    const own = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
    if (requestMethod === undefined || own === undefined) return [];
    const method = RequestMethod[requestMethod].toLowerCase();
    const returns = Reflect.getMetadata(RETURNS, handler) as ReturnsDeclaration | undefined;
    const dtos = parameterDtos(controller, name);
    const bodyDto = dtos.body;
    return (Array.isArray(own) ? own : [own]).map((sub) => ({
      method,
      path: openApiPath(prefix, sub),
      handlerName: `${controller.name}.${name}`,
      tag: ((Reflect.getMetadata(API_TAGS, handler) as string[] | undefined) ?? controllerTags)?.[0] ?? controller.name.replace(/Controller$/, ''),
      status: (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (method === 'post' ? 201 : 200),
      kind: Reflect.getMetadata(ROUTE_KIND_OPTIONS, handler) as RouteKindOptions | undefined,
      returns,
      body: returns?.request?.body
        ? { schema: returns.request.body, required: returns.request.bodyRequired ?? true }
        : bodyDto?.schema
          ? { schema: bodyDto.schema, required: bodyDto.omittable !== true }
          : undefined,
      query: returns?.request?.query ?? (dtos.query?.schema as z.ZodObject | undefined),
    }));
  });
}

/** The zod DTO classes of a handler's `@Body()` and `@Query()` parameters (those the request pipe validates). */
function parameterDtos(controller: ControllerClass, method: string): { body?: ZodDtoClass; query?: ZodDtoClass } {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<string, { index: number; data?: unknown }>;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, method) ?? []) as unknown[];
  const found: { body?: ZodDtoClass; query?: ZodDtoClass } = {};
  for (const [key, { index, data }] of Object.entries(args)) {
    const type = types[index] as ZodDtoClass | undefined;
    if (data !== undefined || !type?.isZodDto) continue;
    const paramType = Number(key.split(':')[0]) as RouteParamtypes;
    if (paramType === RouteParamtypes.BODY) found.body = type;
    if (paramType === RouteParamtypes.QUERY) found.query = type;
  }
  return found;
}

/** `api/v1/records` + `:recordId/recall` → `/api/v1/records/{recordId}/recall`. */
function openApiPath(prefix: string, sub: string): string {
  const joined = `/${[prefix, sub].map((p) => p.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`;
  return joined.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}
