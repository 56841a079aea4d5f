import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../services/index.js';
import { registerAuthRoutes } from './auth/index.js';
import { registerBookRoutes } from './books/index.js';
import { Book, Plan } from './books/schemas.js';
import { registerPlanRoutes } from './plans/index.js';
import { registerMeRoutes } from './me/index.js';
import { registerSubmissionRoutes } from './submissions/index.js';
import { MediaSummary } from './media/schemas.js';
import { registerMediaRoutes } from './media/index.js';
import { registerTranscriptionRoutes } from './transcriptions/index.js';
import { Transcription } from './transcriptions/schemas.js';
import { Device } from './me/device-schemas.js';
import { Submission } from './submissions/schemas.js';
import { registerMemberRoutes } from './members/index.js';
import { Member } from './members/schemas.js';
import { registerInvitationRoutes } from './invitations/index.js';
import { Invitation } from './invitations/schemas.js';
import { registerChannelRoutes } from './channels/index.js';
import { ChannelStatus } from './channels/schemas.js';
import { registerSubscriptionRoutes } from './subscriptions/index.js';
import { Subscription } from './subscriptions/schemas.js';
import { registerExportRoutes } from './exports/index.js';
import { ExportJob } from './exports/schemas.js';
import { registerEventRoutes } from './events/index.js';
import { Event } from './events/schemas.js';
import { registerWebhookEndpointRoutes } from './webhook-endpoints/index.js';
import { WebhookDelivery, WebhookEndpoint } from './webhook-endpoints/schemas.js';

/** Every /api/v1 route, registered here so the list reads in one place. */
export async function registerApiRoutes(api: FastifyInstance, ctx: RouteContext) {
  registerAuthRoutes(api, ctx);
  await registerMeRoutes(api, ctx);
  registerPlanRoutes(api, ctx);
  registerBookRoutes(api, ctx);
  registerSubmissionRoutes(api, ctx);
  await registerMediaRoutes(api, ctx);
  registerTranscriptionRoutes(api, ctx);
  registerMemberRoutes(api, ctx);
  registerInvitationRoutes(api, ctx);
  registerChannelRoutes(api, ctx);
  registerSubscriptionRoutes(api, ctx);
  registerExportRoutes(api, ctx);
  registerEventRoutes(api, ctx);
  registerWebhookEndpointRoutes(api, ctx);
}

/** Resource schemas referenced by $id from several routes; added once at the root so the document lists them in components. */
export const SHARED_SCHEMAS = [Book, Plan, MediaSummary, Submission, Member, Invitation, ChannelStatus, Subscription, ExportJob, Event, WebhookEndpoint, WebhookDelivery, Transcription, Device];
