import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../../services/index.js';
import { archiveAndRestoreBook } from './archive-book.js';
import { deleteCover } from './cover.js';
import { createBook } from './create-book.js';
import { deleteBook } from './delete-book.js';
import { getBilling } from './get-billing.js';
import { getBook } from './get-book.js';
import { getPermissions } from './get-permissions.js';
import { listBooks } from './list-books.js';
import { rotateFormKey } from './rotate-form-key.js';
import { updateBook } from './update-book.js';

export function registerBookRoutes(app: FastifyInstance, ctx: RouteContext) {
  listBooks(app, ctx);
  createBook(app, ctx);
  getBook(app, ctx);
  updateBook(app, ctx);
  archiveAndRestoreBook(app, ctx);
  deleteBook(app, ctx);
  getPermissions(app, ctx);
  getBilling(app, ctx);
  rotateFormKey(app, ctx);
  deleteCover(app, ctx);
}
