import type { ModelText, ToolDefinition } from './model.js';

/**
 * Flattens every field of a tool, prompt, resource or instructions block that reaches the model into one list, so the
 * text rules (poisoning, hidden characters, shadowing, magic parameters) look at each field exactly once and can point
 * at it by name.
 */
export function modelTexts(tools: readonly ToolDefinition[]): ModelText[] {
  const texts: ModelText[] = [];
  for (const tool of tools) {
    const push = (field: string, text: unknown) => {
      if (typeof text === 'string' && text.length > 0) {
        texts.push({ tool: tool.name, toolKind: tool.kind, field, text, location: tool.location });
      }
    };
    push('name', tool.name);
    push('title', tool.title);
    push('description', tool.description);
    push('uri', tool.uri);
    if (typeof tool.annotations?.title === 'string') push('annotations.title', tool.annotations.title);
    for (const parameter of tool.parameters) {
      push(`parameters.${parameter.name}.name`, parameter.name);
      push(`parameters.${parameter.name}.description`, parameter.description);
      if (typeof parameter.default === 'string') push(`parameters.${parameter.name}.default`, parameter.default);
      parameter.enum?.forEach((value, index) => push(`parameters.${parameter.name}.enum[${index}]`, value));
    }
  }
  return texts;
}
