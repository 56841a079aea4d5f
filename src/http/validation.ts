import type AjvModule from 'ajv';
import type FormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler, FastifyServerOptions } from 'fastify';
import { createRequire } from 'node:module';

/**
 * Schema compilers that compile on first use. Fastify compiles every route's
 * validators and response serializers when the app becomes ready (each GET
 * twice, for its HEAD twin), which was most of the time from start to
 * ready; most of them are not needed for a while, some never. Compiling on
 * the first call gives the same function: the same Ajv instances and options,
 * the same fast-json-stringify with the same shared schemas. Only the moment
 * moves, so a schema that cannot compile fails its first request instead of
 * the start; `compileDeferredSchemas` compiles them all (the tests call it on
 * the whole app). Ajv and fast-json-stringify themselves are loaded with the
 * first schema compiled.
 */
interface Deferred {
  pending: Set<() => void>;
}

/** Per app, found through `app.validatorCompiler` (Fastify keeps ours at the root). */
const deferredOf = new WeakMap<object, Deferred>();

/** A function compiled on its first call (or by `compileDeferredSchemas`); `compile` runs once. */
function deferred<F extends (...args: any[]) => any>(registry: Deferred, compile: () => F): { call: F; get(): F } {
  let compiled: F | undefined;
  const get = () => {
    if (!compiled) {
      compiled = compile();
      registry.pending.delete(get);
    }
    return compiled;
  };
  registry.pending.add(get);
  // Two fixed arguments (a serializer takes one, a validator two): no rest array on every call of a hot path.
  return { call: ((a?: unknown, b?: unknown) => get()(a, b)) as F, get };
}

export interface SchemaCompilers {
  /** For `app.setValidatorCompiler`. */
  validatorCompiler: FastifySchemaCompiler<unknown>;
  /**
   * For Fastify's `schemaController` option. Both builders are given so that
   * Fastify loads neither of its defaults (and Ajv with them) at start.
   */
  compilersFactory: { buildValidator: ValidatorBuilder; buildSerializer: SerializerBuilder };
}

export function createSchemaCompilers(): SchemaCompilers {
  const registry: Deferred = { pending: new Set() };
  const validatorCompiler = createValidatorCompiler(registry);
  deferredOf.set(validatorCompiler, registry);
  return {
    validatorCompiler,
    compilersFactory: {
      // Our Ajv instances ignore the shared schemas and Fastify's `ajv` option, as app.setValidatorCompiler does.
      buildValidator: (() => validatorCompiler) as unknown as ValidatorBuilder, // (its typings describe a plain Ajv compile)
      buildSerializer(externalSchemas, serializerOpts) {
        // A compiler of its own for each schema: Fastify's drops a schema's own $id from the shared
        // schemas it hands to later compiles, which would make the result depend on the order of first use.
        return (route) => deferred(registry, () => defaultSerializerBuilder()(externalSchemas, serializerOpts)(route)).call;
      },
    },
  };
}

/** Compiles every validator and serializer of the app not compiled yet; throws what the first broken one throws. */
export function compileDeferredSchemas(app: FastifyInstance): number {
  const registry = deferredOf.get(app.validatorCompiler as object);
  if (!registry) throw new Error('this app does not defer its schema compilation');
  let compiled = 0;
  for (const get of [...registry.pending]) {
    get();
    compiled++;
  }
  return compiled;
}

/**
 * Bodies: every error reported, unknown fields rejected (never stripped), no
 * type coercion ("true" is not a boolean). Query and path: strings coerced,
 * first error is enough for the 400 that names one param.
 */
function createValidatorCompiler(registry: Deferred): FastifySchemaCompiler<unknown> {
  let body: Ajv | undefined;
  let query: Ajv | undefined;
  const ajvFor = (httpPart: string | undefined) => {
    if (httpPart === 'body') {
      body ??= newAjv({ allErrors: true, removeAdditional: false, useDefaults: true, coerceTypes: false, strict: false });
      return body;
    }
    query ??= newAjv({ allErrors: false, removeAdditional: false, useDefaults: true, coerceTypes: 'array', strict: false });
    return query;
  };
  return ({ schema, httpPart }) => {
    const validator = deferred(registry, () => ajvFor(httpPart).compile(schema as object));
    // Fastify reads `errors` after a failed call, and passes the parent object
    // (so Ajv may coerce or default a root value) only to a function with a
    // `schemaEnv`, which every Ajv function has: both are forwarded.
    const validate = (data: unknown, dataCxt?: unknown) => (validator.get() as (d: unknown, c?: unknown) => unknown)(data, dataCxt);
    Object.defineProperties(validate, {
      errors: { get: () => validator.get().errors },
      schemaEnv: { get: () => validator.get().schemaEnv },
    });
    return validate as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}

type Ajv = InstanceType<typeof AjvModule.default>;
type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorBuilder = NonNullable<CompilersFactory['buildValidator']>;
type SerializerBuilder = NonNullable<CompilersFactory['buildSerializer']>;

const requireHere = createRequire(import.meta.url);

function newAjv(options: ConstructorParameters<typeof AjvModule.default>[0]): Ajv {
  const { default: AjvClass } = requireHere('ajv') as typeof AjvModule;
  const { default: addFormats } = requireHere('ajv-formats') as typeof FormatsModule;
  const ajv = new AjvClass(options);
  addFormats(ajv);
  return ajv;
}

let serializerSelector: (() => SerializerBuilder) | undefined;

/** The builder Fastify uses when given none: its own copy of @fastify/fast-json-stringify-compiler. */
function defaultSerializerBuilder(): SerializerBuilder {
  serializerSelector ??= createRequire(requireHere.resolve('fastify'))('@fastify/fast-json-stringify-compiler') as () => SerializerBuilder;
  return serializerSelector();
}
