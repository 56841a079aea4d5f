/** The test book in every theme, `home` intent (see test-book.ts). */
import { describeTestBook } from './test-book.js';

describeTestBook('home');
