import type { ToolParameter } from '../../model.js';
import { upperBound } from '../catalog.js';
import type { AstNode } from './ast.js';
import { memberName, objectProperty, propertyName, unwrap } from './ast.js';
import type { FileIndex, StaticValue } from './file-index.js';
import { lookupBinding, lookupNamespaceMember, resolveExpression, staticString, staticValue } from './file-index.js';

/** What a zod schema expression says about one value. */
interface ZodInfo {
  type?: string;
  description?: string;
  enum?: string[];
  default?: unknown;
  hasDefault?: boolean;
  optional?: boolean;
  pattern?: string;
  format?: string;
  maximum?: number;
  /** The raw shape of a `z.object({...})`, and the file it is written in. */
  shape?: AstNode;
  shapeIndex?: FileIndex;
}

const ZOD_FORMATS = new Set(['url', 'email', 'uuid', 'cuid', 'ulid', 'ipv4', 'ipv6', 'datetime', 'date', 'base64']);
const SCHEMA_CONVERTERS = new Set(['zodToJsonSchema', 'toJSONSchema', 'toJsonSchema', 'zodToJson', 'z.toJSONSchema']);

/** `z`, `zod`, `zod_1.z`, `import_zod.z`, `(0, zod_1.z)`, `z.coerce`, or any local name imported from 'zod'. */
function isZodNamespace(node: AstNode | undefined, index: FileIndex): boolean {
  const current = unwrap(node);
  if (!current) return false;
  if (current.type === 'Identifier') {
    if (current.name === 'z' || current.name === 'zod') return true;
    const binding = index.imports.get(current.name);
    return binding !== undefined && /^zod(\/|$)/.test(binding.source);
  }
  if (current.type === 'MemberExpression') {
    const name = memberName(current);
    if (name === 'coerce') return isZodNamespace(current.object, index);
    if (name === 'z') return true;
  }
  return false;
}

function zodInfo(node: AstNode | undefined, index: FileIndex, depth = 0): ZodInfo | undefined {
  const current = unwrap(node);
  if (!current || depth > 40) return undefined;
  if (current.type === 'Identifier') {
    const bound = lookupBinding(current.name, index);
    return bound && bound.node !== current ? zodInfo(bound.node, bound.index, depth + 1) : undefined;
  }
  if (current.type === 'MemberExpression') {
    const imported = lookupNamespaceMember(current.object, memberName(current), index);
    return imported ? zodInfo(imported.node, imported.index, depth + 1) : undefined;
  }
  if (current.type !== 'CallExpression') return undefined;
  const callee = unwrap(current.callee);
  if (callee?.type !== 'MemberExpression') return undefined;
  const method = memberName(callee);
  if (!method) return undefined;
  const args: AstNode[] = current.arguments;
  if (isZodNamespace(callee.object, index)) {
    const info: ZodInfo = { type: method };
    if (method === 'enum' || method === 'nativeEnum') {
      const values = staticValue(args[0], index);
      if (Array.isArray(values)) info.enum = values.map(String);
      else if (values && typeof values === 'object' && !(values instanceof RegExp)) info.enum = Object.values(values).map(String);
      info.type = 'string';
    } else if (method === 'literal') {
      const value = staticValue(args[0], index);
      if (value !== undefined && typeof value !== 'object') info.enum = [String(value)];
    } else if (method === 'object' || method === 'strictObject' || method === 'looseObject') {
      info.type = 'object';
      info.shape = unwrap(args[0]);
      info.shapeIndex = index;
    } else if (ZOD_FORMATS.has(method)) {
      info.type = 'string';
      info.format = method;
    }
    return info;
  }
  const inner = zodInfo(callee.object, index, depth + 1);
  if (!inner) return undefined;
  switch (method) {
    case 'describe':
      inner.description = staticString(args[0], index) ?? inner.description;
      break;
    case 'optional':
    case 'nullish':
      inner.optional = true;
      break;
    case 'default': {
      inner.default = staticValue(args[0], index);
      inner.hasDefault = true;
      inner.optional = true;
      break;
    }
    case 'regex': {
      const value = staticValue(args[0], index);
      if (value instanceof RegExp) inner.pattern = value.source;
      break;
    }
    case 'max':
    case 'lte':
    case 'lt':
    case 'length': {
      // `z.number().int().max(100)`, `z.string().max(200)`, `z.array(x).max(50)`: an upper bound on the value or its size.
      const bound = staticValue(args[0], index);
      if (typeof bound === 'number') inner.maximum = Math.min(bound, inner.maximum ?? bound);
      break;
    }
    case 'meta': {
      const meta = unwrap(args[0]);
      const description = staticString(objectProperty(meta, 'description'), index);
      if (description !== undefined) inner.description = description;
      break;
    }
    default:
      if (ZOD_FORMATS.has(method)) inner.format = method;
  }
  return inner;
}

function parameterFromZod(name: string, info: ZodInfo | undefined): ToolParameter {
  const parameter: ToolParameter = { name, required: info ? !info.optional : true };
  if (!info) return parameter;
  if (info.type) parameter.type = info.type;
  if (info.description !== undefined) parameter.description = info.description;
  if (info.enum) parameter.enum = info.enum;
  if (info.hasDefault) parameter.default = info.default;
  if (info.pattern !== undefined) parameter.pattern = info.pattern;
  if (info.format !== undefined) parameter.format = info.format;
  if (info.maximum !== undefined) parameter.maximum = info.maximum;
  return parameter;
}

function parametersFromJsonSchema(schema: AstNode, index: FileIndex): ToolParameter[] {
  const properties = resolveObject(objectProperty(schema, 'properties'), index);
  const required = staticValue(objectProperty(schema, 'required'), index);
  const requiredNames = new Set(Array.isArray(required) ? required.map(String) : []);
  const parameters: ToolParameter[] = [];
  if (properties?.type !== 'ObjectExpression') return parameters;
  for (const property of properties.properties) {
    if (property.type !== 'Property') continue;
    const name = propertyName(property.key, property.computed);
    if (!name) continue;
    const definition = resolveObject(property.value, index);
    const parameter: ToolParameter = { name, required: requiredNames.has(name) };
    const value = definition ? (staticValue(definition, index) as Record<string, StaticValue> | undefined) : undefined;
    const field = (key: string): StaticValue | undefined =>
      value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof RegExp)
        ? value[key]
        : staticValue(objectProperty(definition, key), index);
    const type = field('type');
    if (typeof type === 'string') parameter.type = type;
    const description = field('description');
    if (typeof description === 'string') parameter.description = description;
    const enumValues = field('enum');
    if (Array.isArray(enumValues)) parameter.enum = enumValues.map(String);
    if (definition && objectProperty(definition, 'default') !== undefined) parameter.default = field('default');
    const pattern = field('pattern');
    if (typeof pattern === 'string') parameter.pattern = pattern;
    const format = field('format');
    if (typeof format === 'string') parameter.format = format;
    const maximum = upperBound(field);
    if (maximum !== undefined) parameter.maximum = maximum;
    parameters.push(parameter);
  }
  return parameters;
}

function resolveObject(node: AstNode | undefined, index: FileIndex, depth = 0): AstNode | undefined {
  return resolveExpression(node, index, depth).node;
}

/**
 * Parameters from whatever a tool's input schema is written as: a zod raw shape (`{ path: z.string() }`), a zod object
 * (`z.object({...})`), a JSON-schema literal, `zodToJsonSchema(Schema)`, or a same-file constant holding any of these.
 */
export function parametersFromSchema(node: AstNode | undefined, fromIndex: FileIndex, depth = 0): ToolParameter[] {
  const { node: current, index } = resolveExpression(node, fromIndex);
  if (!current || depth > 5) return [];
  // `Schema.shape`: the raw shape of a z.object declared elsewhere.
  if (current.type === 'MemberExpression' && memberName(current) === 'shape') return parametersFromSchema(current.object, index, depth + 1);
  if (current.type === 'CallExpression') {
    const calleeNode = unwrap(current.callee);
    const callee = calleeNode?.type === 'Identifier' ? calleeNode.name : calleeNode?.type === 'MemberExpression' ? memberName(calleeNode) : undefined;
    if (callee && (SCHEMA_CONVERTERS.has(callee) || callee === 'toJSONSchema')) return parametersFromSchema(current.arguments[0], index, depth + 1);
    const info = zodInfo(current, index);
    if (info?.shape) return parametersFromSchema(info.shape, info.shapeIndex ?? index, depth + 1);
    return [];
  }
  if (current.type !== 'ObjectExpression') return [];
  if (objectProperty(current, 'properties') !== undefined || staticValue(objectProperty(current, 'type'), index) === 'object') {
    return parametersFromJsonSchema(current, index);
  }
  const parameters: ToolParameter[] = [];
  for (const property of current.properties) {
    if (property.type !== 'Property') continue;
    const name = propertyName(property.key, property.computed);
    if (!name) continue;
    // mcp-framework's field map: `{ query: { type: z.string(), description: 'Words to look for' } }`.
    const field = unwrap(property.value);
    const fieldType = field?.type === 'ObjectExpression' ? objectProperty(field, 'type') : undefined;
    if (fieldType && zodInfo(fieldType, index)) {
      const parameter = parameterFromZod(name, zodInfo(fieldType, index));
      const description = staticString(objectProperty(field, 'description'), index);
      if (description !== undefined) parameter.description = description;
      parameters.push(parameter);
    } else parameters.push(parameterFromZod(name, zodInfo(property.value, index)));
  }
  return parameters;
}

/** True for something that looks like a schema argument rather than a description or annotations object. */
export function looksLikeSchema(node: AstNode | undefined, fromIndex: FileIndex): boolean {
  const { node: current, index } = resolveExpression(node, fromIndex);
  if (!current) return false;
  if (current.type === 'CallExpression') return zodInfo(current, index)?.shape !== undefined;
  if (current.type !== 'ObjectExpression') return false;
  if (current.properties.length === 0) return true;
  if (objectProperty(current, 'properties') !== undefined) return true;
  return current.properties.some((property: AstNode) => property.type === 'Property' && zodInfo(property.value, index) !== undefined);
}

