/** The test book in every theme, `screen` intent (see test-book.ts). */
import { describeTestBook } from './test-book.js';

describeTestBook('screen');
