import type { LanguageAnalyzer } from './analyzer.js';
import { javascriptAnalyzer } from './javascript/index.js';
import { pythonAnalyzer } from './python/index.js';

/** Every language analyzer, in the order the engine runs them. */
export const ANALYZERS: readonly LanguageAnalyzer[] = [javascriptAnalyzer, pythonAnalyzer];
