// A remote server's listings in the shapes static extraction produces (ToolDefinition, ModelText), so the text rules
// run on them unchanged. Each definition is located at `<endpoint>#<kind>/<name>` (docs/report.md, Remote endpoints).

import type { ModelText, SourceLocation, ToolDefinition, ToolParameter } from '../model.js';
import type { RemoteListing } from './client.js';

export interface RemoteDefinitions {
  tools: ToolDefinition[];
  /** Texts the model reads that a ToolDefinition has no field for: nested and output schema descriptions. */
  extraTexts: ModelText[];
}

/** Where a listed item is: the endpoint URL with a fragment naming the listing and the item. */
export function remoteLocation(endpoint: string, listing: string, name: string): SourceLocation {
  return { file: `${endpoint}#${listing}/${encodeURIComponent(name)}`, line: 1, column: 1 };
}

export function remoteDefinitions(endpoint: string, listing: RemoteListing): RemoteDefinitions {
  const tools: ToolDefinition[] = [];
  const extraTexts: ModelText[] = [];
  const extra = (definition: ToolDefinition, field: string, text: unknown) => {
    if (typeof text === 'string' && text.length > 0) {
      extraTexts.push({ tool: definition.name, toolKind: definition.kind, field, text, location: definition.location });
    }
  };

  if (listing.instructions) {
    const name = listing.server?.name ?? 'server';
    tools.push({ kind: 'instructions', name, description: listing.instructions, parameters: [], location: remoteLocation(endpoint, 'instructions', name), extractor: 'remote' });
  }
  for (const tool of listing.tools) {
    const definition: ToolDefinition = {
      kind: 'tool',
      name: tool.name,
      ...text('title', tool.title),
      ...text('description', tool.description),
      parameters: parametersOf(tool.inputSchema),
      ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
      location: remoteLocation(endpoint, 'tools', tool.name),
      extractor: 'remote',
    };
    tools.push(definition);
    nestedTexts(tool.inputSchema, 'inputSchema', true, (field, value) => extra(definition, field, value));
    if (tool.outputSchema) nestedTexts(tool.outputSchema, 'outputSchema', false, (field, value) => extra(definition, field, value));
  }
  for (const prompt of listing.prompts) {
    tools.push({
      kind: 'prompt',
      name: prompt.name,
      ...text('title', prompt.title),
      ...text('description', prompt.description),
      parameters: (prompt.arguments ?? []).map((argument) => ({
        name: argument.name,
        ...text('description', argument.description),
        required: argument.required === true,
      })),
      location: remoteLocation(endpoint, 'prompts', prompt.name),
      extractor: 'remote',
    });
  }
  // Resources and resource templates read the same to the model: a name, a text and an address.
  const resource = (item: { name: string; title?: string; description?: string }, uri: string, section: 'resources' | 'resource-templates') =>
    tools.push({
      kind: 'resource',
      name: item.name,
      ...text('title', item.title),
      ...text('description', item.description),
      parameters: [],
      uri,
      location: remoteLocation(endpoint, section, item.name),
      extractor: 'remote',
    });
  for (const item of listing.resources) resource(item, item.uri, 'resources');
  for (const item of listing.resourceTemplates) resource(item, item.uriTemplate, 'resource-templates');
  return { tools, extraTexts };
}

function text<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' && value.length > 0 ? ({ [key]: value } as Record<K, string>) : {};
}

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The top-level properties of an input schema, as the static extractors read them. */
function parametersOf(schema: unknown): ToolParameter[] {
  if (!isSchema(schema) || !isSchema(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const prop = isSchema(property) ? property : {};
    const maximum = [prop.maximum, prop.exclusiveMaximum, prop.maxLength].find((value) => typeof value === 'number');
    const parameter: ToolParameter = { name, required: required.has(name) };
    if (typeof prop.type === 'string') parameter.type = prop.type;
    if (typeof prop.description === 'string' && prop.description !== '') parameter.description = prop.description;
    if (Array.isArray(prop.enum)) parameter.enum = prop.enum.filter((value): value is string => typeof value === 'string');
    if ('default' in prop) parameter.default = prop.default;
    if (typeof prop.pattern === 'string') parameter.pattern = prop.pattern;
    if (typeof prop.format === 'string') parameter.format = prop.format;
    if (typeof maximum === 'number') parameter.maximum = maximum;
    return parameter;
  });
}

const MAX_DEPTH = 8;

/**
 * Every `title`/`description` in a schema the top-level parameters do not already carry: nested properties, array
 * items, `$defs`, and the whole output schema. A poisoned description hides as well three levels down.
 */
function nestedTexts(schema: unknown, base: string, skipTopProperties: boolean, push: (field: string, text: unknown) => void): void {
  const walk = (node: unknown, field: string, depth: number, top: boolean) => {
    if (!isSchema(node) || depth > MAX_DEPTH) return;
    push(`${field}.title`, node.title);
    // A top-level input property's description is already `parameters.<name>.description`.
    if (!(skipTopProperties && top)) push(`${field}.description`, node.description);
    for (const key of ['properties', '$defs', 'definitions', 'patternProperties'] as const) {
      const children = node[key];
      if (!isSchema(children)) continue;
      for (const [name, child] of Object.entries(children)) walk(child, `${field}.${key}.${name}`, depth + 1, key === 'properties' && depth === 0);
    }
    for (const key of ['items', 'additionalProperties', 'not'] as const) walk(node[key], `${field}.${key}`, depth + 1, false);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const options = node[key];
      if (Array.isArray(options)) options.forEach((option, index) => walk(option, `${field}.${key}[${index}]`, depth + 1, false));
    }
  };
  walk(schema, base, 0, false);
}
