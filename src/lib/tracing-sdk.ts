/**
 * The OpenTelemetry SDK, loaded only when tracing is configured (see tracing.ts): a tracer provider with a
 * batching processor and the OTLP/HTTP exporter (JSON encoding), AsyncLocalStorage context, W3C Trace Context
 * propagation. The SDK and the exporter read their own OTEL_* variables (endpoint, headers, timeout, sampler,
 * batch sizes, resource attributes, service name).
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, ConsoleSpanExporter } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

export function registerTracing(settings: { exporter: 'otlp' | 'console' }, defaults: { serviceName: string; serviceVersion?: string }): () => Promise<void> {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: defaults.serviceName, ...(defaults.serviceVersion ? { [ATTR_SERVICE_VERSION]: defaults.serviceVersion } : {}) }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults.
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = settings.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return async () => {
    await provider.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  };
}

