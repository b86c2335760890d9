/** The server's own OpenAPI document as a list of routes, for tests that cover every route (also those added later). */
import type { TestServer } from './harness.js';

export interface OpenApiOperation {
  requestBody?: { content?: { 'application/json'?: { schema?: JsonSchema } } };
  parameters?: Array<{ in: string; name: string; schema?: JsonSchema }>;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  if?: JsonSchema;
  then?: JsonSchema;
  else?: JsonSchema;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
}

export interface Route {
  method: string;
  path: string;
  operation: OpenApiOperation;
}

/** Every operation of GET /openapi.json, method in upper case. */
export async function openApiRoutes(server: TestServer): Promise<Route[]> {
  const response = await server.request('GET', '/openapi.json');
  const document = (await response.json()) as { paths: Record<string, Record<string, OpenApiOperation>> };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

/** The body schema of an operation, if it takes JSON. */
export function bodySchema(operation: OpenApiOperation): JsonSchema | undefined {
  return operation.requestBody?.content?.['application/json']?.schema;
}
