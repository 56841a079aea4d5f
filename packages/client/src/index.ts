/**
 * memorybook-client: a typed client for the Memory Book Integrator API.
 * See README.md for a first call in five minutes.
 */
export { createMemorybookClient, type MemorybookClient, type MemorybookClientOptions, type SyncArgs, type SyncResult, type UpdateOptions } from './client.js';
export {
  ExportFailedError,
  MediaProcessingError,
  MediaUnavailableError,
  MemorybookApiError,
  MemorybookConnectionError,
  MemorybookError,
  ok,
  SCHEMA_VALIDATION_CODE,
  WaitTimeoutError,
  type ApiErrorCode,
  type ErrorCode,
  type ErrorDetails,
  type MemorybookErrorCode,
  type MemorybookErrorWithCode,
  type ValidationIssue,
} from './errors.js';
export type { ExportArtifact, ExportJob, ExportRequest, ExportWaitOptions, ExportHelpers } from './exports.js';
export type { MeHelpers, MeListOptions, Membership, MySubmission, MySubscription } from './me.js';
export type { FileInput, FreshOptions, MediaHelpers, MediaRef, UploadOptions, WaitOptions } from './media.js';
export { backoffMs, newIdempotencyKey, retryDelayMs, type RetryOptions, type TransportOptions } from './transport.js';
export type {
  Book,
  BodyOf,
  Device,
  components,
  ErrorEnvelope,
  Invitation,
  LegacyListArgs,
  ListArgs,
  ListItem,
  ListPath,
  Media,
  Member,
  operations,
  Page,
  paths,
  Plan,
  ResponseOf,
  Submission,
  SyncPath,
  Transcription,
  UpdatablePath,
  ValidationErrorBody,
} from './types.js';
export { verifyWebhook, WebhookVerificationError, type VerifyOptions, type WebhookEvent, type WebhookEventOf, type WebhookEventType } from './webhooks.js';
