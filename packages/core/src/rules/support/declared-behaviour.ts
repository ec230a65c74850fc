// What a tool's own words say it does, per sink kind: shared by the description-behaviour judge (declared behaviour is
// a design choice) and tool-hidden-behaviour (a description that claims the opposite of what the code does).
import type { SinkKind } from '../../scan/model.js';

/** Words with which a description declares that a tool does what a sink of each kind does. */
export const DECLARES: Record<SinkKind, RegExp> = {
  command:
    /\b(?:shell|commands?|terminal|console|bash|zsh|powershell|cmd|exec|executes?|subprocess|cli|run(?:s|ning)?\s+(?:a\s+|the\s+|any\s+|arbitrary\s+)?(?:shell\s+|system\s+)?(?:commands?|scripts?|programs?|processes?|binar(?:y|ies)))\b/,
  code: /\b(?:eval\w*|interpreter|repl|sandbox|expressions?|(?:execute|executes|run|runs|running)\s+(?:arbitrary\s+|the\s+|some\s+)?(?:code|javascript|js|python|scripts?|snippets?)|code\s+execution)\b/,
  deserialize: /\b(?:pickle|unpickle|deserializ\w*|yaml|marshal|serialized)\b/,
  'file-read': /\b(?:files?|director(?:y|ies)|folders?|paths?|filesystem|disk|documents?|reads?)\b|~\/|\.ssh\b|\.env\b/,
  'file-write': /\b(?:files?|director(?:y|ies)|folders?|paths?|filesystem|disk|documents?|writes?|saves?)\b/,
  network:
    /\b(?:urls?|uris?|https?|fetch(?:es)?|download\w*|web|websites?|web\s?pages?|pages?|apis?|endpoints?|requests?|crawl\w*|scrap\w*|brows\w*|internet|online|remote|links?|proxy)\b/,
  'network-send':
    /\b(?:send\w*|post\w*|upload\w*|webhooks?|submit\w*|publish\w*|notif\w*|sync\w*|share\w*|forward\w*|apis?|https?|slack|discord|telegram|messages?|remote|backup\w*|telemetry|analytics|report\w*)\b/,
  sql: /\b(?:sql|quer(?:y|ies)|databases?|db|tables?|postgres\w*|mysql|sqlite|mariadb|mssql)\b/,
  email: /\b(?:e-?mails?|e\s?mails?|mail\w*|smtp|inbox|recipients?)\b/,
  'tool-result': /\b(?:environment|env|variables?|config\w*|settings|credentials?|secrets?|tokens?|keys?)\b/,
  allocation: /\b(?:repeat\w*|generat\w*|buffers?|allocat\w*|iterations?|loops?|times|count)\b/,
  regex: /\b(?:regex\w*|regexp|regular\s+expressions?|patterns?)\b/,
  log: /\b(?:logs?|logging|logged|audit\w*|debug\w*|trac(?:e|es|ing))\b/,
};
