import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;
type Header = { $ref?: string; required?: boolean };
type DocResponse = { content?: Record<string, { schema?: unknown }>; headers?: Record<string, Header> };
type Doc = {
  paths: Record<string, Record<string, { responses?: Record<string, DocResponse> }>>;
  components?: { schemas?: Record<string, Json>; headers?: Record<string, Header> };
};

/**
 * Checks a response against the served OpenAPI document: the operation must
 * exist (or the answer is a routing error), the status must be documented,
 * the JSON body must match that status's schema, and the headers the
 * document knows (ETag, Location, Retry-After…) must be declared on that
 * response when sent, and sent when declared required.
 *
 * The document lets response objects carry fields it does not list (clients
 * must ignore them), but the server must not send any: the bodies are checked
 * against a strict copy in which every response object schema that lists its
 * fields allows only those.
 */
export function createResponseValidator(doc: Doc) {
  const strict = strictResponses(doc);
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(strict as object, 'openapi.json');
  const routes = Object.keys(doc.paths).map((template) => ({
    template,
    re: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
  }));
  const ptr = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
  const knownHeaders = Object.keys(doc.components?.headers ?? {});
  const headerDef = (h: Header): Header => (h.$ref ? (doc.components?.headers?.[h.$ref.split('/').pop()!] ?? h) : h);

  return function validate(
    method: string,
    url: string,
    status: number,
    contentType: string | undefined,
    body: string,
    headers: Record<string, unknown> = {},
  ): string[] {
    const path = url.split('?')[0];
    const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const route = routes.find((r) => r.re.test(path) && doc.paths[r.template][m]);
    const isJson = (contentType ?? '').includes('json');
    if (!route) {
      // No such operation: only the routing answers are allowed: 404 and 405 as the error envelope, the 308 to the slashed path as Moved.
      if (![308, 404, 405].includes(status)) return [`${method} ${path}: no operation in the document, yet answered ${status}`];
      if (!isJson) return ['routing answer is not JSON'];
      return check(`openapi.json#/components/schemas/${status === 308 ? 'Moved' : 'ErrorEnvelope'}`, body);
    }
    const responses = doc.paths[route.template][m].responses ?? {};
    const documented = responses[String(status)] ?? responses.default;
    if (!documented) return [`${method} ${route.template}: status ${status} is not documented (has ${Object.keys(responses).join(', ')})`];
    const problems = headerProblems(`${method} ${route.template} ${status}`, documented, headers);
    if (!documented.content || method.toUpperCase() === 'HEAD' || status === 204) return problems;
    if (!isJson) return [...problems, `${method} ${route.template} ${status}: expected JSON, got ${contentType}`];
    return [...problems, ...check(`openapi.json#/paths/${ptr(route.template)}/${m}/responses/${status}/content/application~1json/schema`, body)];
  };

  function headerProblems(where: string, documented: DocResponse, headers: Record<string, unknown>): string[] {
    const declared = new Map(Object.entries(documented.headers ?? {}).map(([name, h]) => [name.toLowerCase(), headerDef(h)]));
    const out: string[] = [];
    for (const name of knownHeaders) {
      const sent = headers[name.toLowerCase()] !== undefined;
      const decl = declared.get(name.toLowerCase());
      if (sent && !decl) out.push(`${where}: sends the ${name} header, which the document does not declare on this response`);
      if (!sent && decl?.required) out.push(`${where}: the document says ${name} is always sent, but it is missing`);
    }
    return out;
  }

  function check(ref: string, body: string): string[] {
    const v = ajv.getSchema(ref);
    if (!v) return [`schema ${ref} not found`];
    let data: unknown;
    try {
      data = JSON.parse(body);
    } catch {
      return [`body is not JSON: ${body.slice(0, 200)}`];
    }
    return v(data) ? [] : (v.errors ?? []).map((e) => `${ref.split('#')[1]}: ${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`);
  }
}

/**
 * A copy of the document in which each response object schema that lists
 * its properties, and says nothing about others, allows no others.
 */
export function strictResponses<T extends Doc>(doc: T): T {
  const copy = structuredClone(doc);
  for (const schema of Object.values(copy.components?.schemas ?? {})) closeObjects(schema);
  for (const item of Object.values(copy.paths)) {
    for (const op of Object.values(item)) {
      for (const response of Object.values(op.responses ?? {})) {
        for (const media of Object.values(response.content ?? {})) closeObjects(media.schema as Json);
      }
    }
  }
  return copy;
}

function closeObjects(schema: Json | undefined): void {
  if (!schema || typeof schema !== 'object') return;
  const composed = ['allOf', 'anyOf', 'oneOf'].some((k) => k in schema);
  if (schema.properties && typeof schema.properties === 'object' && !composed && !('additionalProperties' in schema) && !('patternProperties' in schema) && !('unevaluatedProperties' in schema)) {
    schema.additionalProperties = false;
  }
  for (const sub of Object.values((schema.properties ?? {}) as Record<string, Json>)) closeObjects(sub);
  for (const key of ['items', 'additionalProperties', 'not']) if (schema[key] && typeof schema[key] === 'object') closeObjects(schema[key]);
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) for (const sub of schema[key] ?? []) closeObjects(sub);
}
