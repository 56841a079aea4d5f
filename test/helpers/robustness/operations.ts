import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export type JsonSchema = Record<string, any>;

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** Path template as served, e.g. /api/v1/books/{slug}/. */
  template: string;
  operationId: string;
  pathParams: Param[];
  queryParams: Param[];
  /** Declared request headers (Idempotency-Key, If-Match). */
  headerParams: Param[];
  /** Takes a multipart/form-data body (an upload) rather than JSON. */
  multipart: boolean;
  /** The JSON request body, when the operation declares one. */
  body: { schema: JsonSchema; contentTypes: string[]; isValid(value: unknown): boolean; isValidProperty(name: string, value: unknown): boolean } | null;
  /** False for `security: []` (public routes). */
  needsAuth: boolean;
  statuses: Set<number>;
}

type Doc = {
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, any>>;
  components?: { parameters?: Record<string, any> };
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const ptr = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every operation of the served OpenAPI document, with what the cases need to know about it. */
export function listOperations(doc: Doc): Operation[] {
  const ajv = new Ajv2020.default({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(asValidated(doc) as object, 'openapi.json');
  // Follows local $refs so the body's properties can be read and validated one by one.
  const resolve = (pointer: string): { pointer: string; schema: JsonSchema } => {
    let p = pointer;
    for (let i = 0; i < 10; i++) {
      const s = p.split('/').slice(1).reduce<any>((o, k) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      if (!s?.$ref || typeof s.$ref !== 'string' || !s.$ref.startsWith('#/')) return { pointer: p, schema: s ?? {} };
      p = s.$ref.slice(1);
    }
    throw new Error(`$ref loop at ${pointer}`);
  };
  const validator = (pointer: string) => {
    const v = ajv.getSchema(`openapi.json#${pointer}`);
    if (!v) throw new Error(`no schema at ${pointer}`);
    return (value: unknown) => v(value) as boolean;
  };

  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!op) continue;
      const params: Param[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolveParameter).map((p: any) => ({
        name: p.name,
        in: p.in,
        required: Boolean(p.required),
        schema: p.schema ?? {},
      }));
      let body: Operation['body'] = null;
      const content = op.requestBody?.content as Record<string, unknown> | undefined;
      if (content?.['application/json']) {
        const base = resolve(`/paths/${ptr(template)}/${method}/requestBody/content/application~1json/schema`);
        const isValid = validator(base.pointer);
        body = {
          schema: base.schema,
          contentTypes: Object.keys(content),
          isValid,
          isValidProperty: (name, value) =>
            base.schema.properties?.[name] === undefined || validator(`${base.pointer}/properties/${ptr(name)}`)(value),
        };
      }
      const security = op.security ?? doc.security ?? [];
      ops.push({
        method: method.toUpperCase(),
        template,
        operationId: op.operationId ?? `${method} ${template}`,
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        headerParams: params.filter((p) => p.in === 'header'),
        body,
        // An upload takes multipart only; a route that takes JSON as well (the one-click unsubscribe form) is not one.
        multipart: Boolean(content?.['multipart/form-data']) && !content?.['application/json'],
        needsAuth: security.length > 0 && !security.some((s: Record<string, string[]>) => Object.keys(s).length === 0),
        statuses: new Set(Object.keys(op.responses ?? {}).map(Number)),
      });
    }
  }
  return ops;

  function resolveParameter(p: any): any {
    const ref: unknown = p?.$ref;
    if (typeof ref !== 'string') return p;
    if (!ref.startsWith('#/components/parameters/')) throw new Error(`parameter $ref ${ref} is not a local component`);
    const resolved = doc.components?.parameters?.[ref.slice('#/components/parameters/'.length)];
    if (!resolved) throw new Error(`parameter $ref ${ref} names nothing`);
    return resolved;
  }
}

/**
 * The document as the request validator enforces it: an `enum` the service
 * checks instead (marked `x-unknown-value`: an unknown value answers 400
 * validation_failed with details.offered, tested in the resource suites) is
 * not a schema failure, so the 422 cases leave it out.
 */
function asValidated(doc: Doc): Doc {
  const copy = structuredClone(doc);
  const strip = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(strip);
    if (!node || typeof node !== 'object') return;
    const s = node as JsonSchema;
    if ('x-unknown-value' in s) delete s.enum;
    Object.values(s).forEach(strip);
  };
  strip(copy.paths);
  return copy;
}

/** The methods each path answers, for the 405 and 308 cases. */
export function methodsByPath(ops: Operation[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const op of ops) m.set(op.template, [...(m.get(op.template) ?? []), op.method]);
  return m;
}

/** Fills a path template; `override` replaces one parameter with a raw (already URL-encoded) segment. */
export function fillPath(template: string, values: Record<string, string>, override?: { name: string; raw: string }): string {
  // A parameter named alike under another resource (`{id}` of /webhook_endpoints/) may have its own value: `<resource>.<name>`.
  const resource = template.split('/')[3];
  return template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    override?.name === name ? override.raw : encodeURIComponent(values[`${resource}.${name}`] ?? values[name] ?? `robustness-missing-${name}`),
  );
}
