/**
 * Files run heaviest first, so the last file of a run is a short one and no
 * worker sits idle while the other finishes a three-minute file. Vitest orders
 * by its cached durations when it has them, otherwise by file size; a clean
 * install (CI's `npm ci`) has no cache, and the heaviest files (a book
 * rendered in eleven themes, CLI processes started one by one) are short files.
 * The list is a measured ranking (slowest first); files not on it follow in
 * vitest's own order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const HEAVIEST_FILES = [
  'test/cli/subscription-cli.test.ts',
  'test/cli/demo.test.ts',
  'test/cli/cli.test.ts',
  'test/exports/pdf/test-book.shop.test.ts',
  'test/mail/inbound-email.corpus.test.ts',
  'test/cli/admin-socket.test.ts',
  'test/ops/tracing.test.ts',
  'test/cli/data-dir-lock.test.ts',
  'test/exports/pdf/test-book.screen.test.ts',
  'test/client/client-build.test.ts',
  'test/exports/pdf/test-book.home.test.ts',
  'test/ops/rolling-restart.test.ts',
];

export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = HEAVIEST_FILES.findIndex((p) => f.moduleId.replaceAll('\\', '/').endsWith('/' + p));
      return i === -1 ? HEAVIEST_FILES.length : i;
    };
    // A stable sort: the listed files first in their order, the rest as vitest had them.
    return sorted.map((f, i) => ({ f, i, r: rank(f) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.f);
  }
}
