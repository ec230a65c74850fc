import { createRule } from './create-rule.js';
import { analyseModelTexts } from './description/analyse.js';
import { reportActs } from './description/report.js';
import { clip, describeModelText, modelTextFinding } from './support/text-patterns.js';

export default createRule({
  id: 'tool-poisoning-directives',
  meta: {
    title: 'Instructions to the model hidden in a tool description',
    category: 'tool-poisoning',
    severity: 'high',
    description:
      'A tool, prompt or resource description, a parameter description or default, or the server instructions ' +
      'give the model orders that are not about the tool: a claim of priority over the user\'s or the system\'s ' +
      'instructions (in any words), secrecy towards the user in any form ("no need to inform anyone"), threats ' +
      '("failure to do so will crash the system"), commands or code to run (`curl … | bash`, a snippet reading ' +
      '`document.cookie`), a consequential act the tool\'s stated purpose does not need, or an order hidden in an ' +
      'HTML comment or a fake system turn. The text is read sentence by sentence (mood, who is addressed, what is ' +
      'acted on), in other languages for the concepts above, and with look-alike letters and invisible characters ' +
      'folded away. MCP clients put these texts into the model\'s context verbatim and usually do not show them to ' +
      'the user. Sentences in a language the analyser does not read are reported as info, so they are never passed ' +
      'as clean; deep mode\'s judges read them. Honest usage notes ("you must provide an absolute path", "call ' +
      'list_tables first") are not reported.',
    remediation:
      'Describe what the tool does and what its parameters mean, nothing else. Remove text that tells the model what ' +
      'to do outside this tool, what to keep from the user, or how to treat other instructions. If this is a ' +
      'third-party server, do not install it until the description is explained.',
    cwe: ['CWE-1427', 'CWE-506'],
    owasp: 'MCP03',
    modes: ['fast', 'deep'],
    confidence: 0.75,
  },
  check(context) {
    reportActs(context, ['priority', 'secrecy', 'threat', 'payload', 'unrelated-action', 'hidden-instruction']);
    // What the analyser could not read is said so, never passed as clean.
    for (const [modelText, analysis] of analyseModelTexts(context.modelTexts, context.tools)) {
      if (analysis.unread.length === 0 || analysis.acts.some((act) => act.severity !== 'low')) continue;
      const languages = [...new Set(analysis.unread.map((unread) => unread.language))].join(', ');
      context.report({
        ...modelTextFinding(modelText),
        severity: 'info',
        confidence: 0.3,
        key: 'unread-language',
        message:
          `The ${describeModelText(modelText)} has ${analysis.unread.length} sentence(s) in a language the analyser reads ` +
          `only for paths, URLs, commands, tool names and a few concepts (${languages}); deep mode's judges read them`,
        evidence: clip(analysis.unread.map((unread) => unread.sentence).slice(0, 3).join(' … '), 400),
      });
    }
  },
});
