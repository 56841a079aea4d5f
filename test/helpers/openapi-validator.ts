import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Doc = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>> };

/**
 * Checks a response against the served OpenAPI document: the operation must
 * exist (or the answer is a routing error), the status must be documented,
 * and the JSON body must match that status's schema.
 */
export function createResponseValidator(doc: Doc) {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(doc as object, 'openapi.json');
  const routes = Object.keys(doc.paths).map((template) => ({
    template,
    re: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
  }));
  const ptr = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

  return function validate(method: string, url: string, status: number, contentType: string | undefined, body: string): string[] {
    const path = url.split('?')[0];
    const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const route = routes.find((r) => r.re.test(path) && doc.paths[r.template][m]);
    const isJson = (contentType ?? '').includes('json');
    if (!route) {
      // No such operation: only the routing answers (308, 404, 405) are allowed, as the error envelope.
      if (![308, 404, 405].includes(status)) return [`${method} ${path}: no operation in the document, yet answered ${status}`];
      return isJson ? check('openapi.json#/components/schemas/ErrorEnvelope', body) : ['routing answer is not JSON'];
    }
    const responses = doc.paths[route.template][m].responses ?? {};
    const documented = responses[String(status)] ?? responses.default;
    if (!documented) return [`${method} ${route.template}: status ${status} is not documented (has ${Object.keys(responses).join(', ')})`];
    if (!documented.content || method.toUpperCase() === 'HEAD' || status === 204) return [];
    if (!isJson) return [`${method} ${route.template} ${status}: expected JSON, got ${contentType}`];
    return check(`openapi.json#/paths/${ptr(route.template)}/${m}/responses/${status}/content/application~1json/schema`, body);
  };

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
