import type { Db } from '../../db/client.js';
import type { AuditService } from '../audit/audit-service.js';
import type { TokenService } from '../tokens/token-service.js';

/** Account self-service: what a signed-in user does to their own credentials and data. */
export function createAccountService(deps: { db: Db; tokens: TokenService; audit: AuditService }) {
  const { db, tokens, audit } = deps;
  return {
    /**
     * Revokes every API key the user holds (the calling one included; browser
     * sessions stay) and records `api_sessions_revoked` in the same transaction.
     */
    async revokeAllTokens(actor: { id: string }, o: { requestId: string; authMethod: string }) {
      return db.transaction(async (tx) => {
        const revoked_count = await tokens.revokeAllTokens(actor.id, tx);
        await audit.record('api_sessions_revoked', { userId: actor.id, requestId: o.requestId, data: { revoked_count, auth_method: o.authMethod } }, tx);
        return { revoked_count };
      });
    },
  };
}
