import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Bodies: every error reported, unknown fields rejected (never stripped), no
 * type coercion ("true" is not a boolean). Query and path: strings coerced,
 * first error is enough for the 400 that names one param.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const body = new Ajv.default({ allErrors: true, removeAdditional: false, useDefaults: true, coerceTypes: false, strict: false });
  const query = new Ajv.default({ allErrors: false, removeAdditional: false, useDefaults: true, coerceTypes: 'array', strict: false });
  addFormats.default(body);
  addFormats.default(query);
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? body : query;
    return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}
