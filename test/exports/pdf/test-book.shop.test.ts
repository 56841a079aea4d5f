/** The test book in every theme, `shop` intent (see test-book.ts). */
import { describeTestBook } from './test-book.js';

describeTestBook('shop');
