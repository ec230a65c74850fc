// Shared by the description bench (built core) and its test (sources): runs every rule of the catalog over one
// corpus item placed in its server (the item's tool beside its sibling tools) and tallies recall per style and the
// benign flag rate. A description counts as flagged when a finding of medium or above names its tool.

const SERIOUS = new Set(['critical', 'high', 'medium']);

/** The tools of the server an item sits in: its own tool carrying the text, and its siblings with plain texts. */
export function serverOf(item) {
  const location = { file: 'src/server.ts', line: 1, column: 1 };
  const field = item.field ?? 'description';
  const parameter = /^parameters\.([^.]+)\.description$/.exec(field);
  const own = {
    kind: 'tool',
    name: item.tool,
    description: parameter ? 'Performs the operation.' : item.text,
    parameters: parameter ? [{ name: parameter[1], type: 'string', required: true, description: item.text }] : [],
    location,
    extractor: 'corpus',
  };
  const siblings = (item.siblings ?? []).filter((name) => name !== item.tool).map((name) => ({
    // Siblings contribute their names (the analyser knows them as tools of this server); their texts are not measured.
    kind: 'tool', name, description: '', parameters: [], location, extractor: 'corpus',
  }));
  return [own, ...siblings];
}

/** Runs the rules over an item; returns the serious findings on its own tool. */
export function flagsOf(item, { rules, modelTexts }) {
  const tools = serverOf(item);
  const findings = [];
  const context = {
    mode: 'fast',
    workspace: { name: 'corpus-server', target: { kind: 'directory', input: '.', path: '/corpus' } },
    files: [],
    manifests: [],
    tools,
    modelTexts: modelTexts(tools),
    flows: [],
    facts: [],
    report: (finding) => findings.push(finding),
  };
  for (const rule of rules) {
    const before = findings.length;
    rule.check(context);
    for (const finding of findings.slice(before)) finding.rule = rule.id;
    for (const finding of findings.slice(before)) finding.severity ??= rule.meta.severity;
  }
  // A parameter item is judged by the findings on that parameter; a description item by every finding on its tool.
  const field = item.field ?? 'description';
  return findings.filter((finding) => finding.tool?.name === item.tool && SERIOUS.has(finding.severity) && (field === 'description' || finding.tool.field === field));
}

/** Recall per poisoned style and flag rate per benign style, plus totals and the time per description. */
export function evaluate(items, core) {
  const styles = new Map();
  const misses = [];
  const started = performance.now();
  for (const item of items) {
    const flagged = flagsOf(item, core).length > 0;
    const key = `${item.label}\u0000${item.style}`;
    const tally = styles.get(key) ?? { label: item.label, style: item.style, total: 0, flagged: 0 };
    tally.total += 1;
    if (flagged) tally.flagged += 1;
    styles.set(key, tally);
    if (flagged !== (item.label === 'poisoned')) misses.push(item);
  }
  const elapsed = performance.now() - started;
  const rows = [...styles.values()];
  const sum = (label, field) => rows.filter((row) => row.label === label).reduce((total, row) => total + row[field], 0);
  return {
    rows,
    misses,
    poisoned: { total: sum('poisoned', 'total'), flagged: sum('poisoned', 'flagged') },
    benign: { total: sum('benign', 'total'), flagged: sum('benign', 'flagged') },
    msPerDescription: elapsed / Math.max(1, items.length),
  };
}

export function percent(part, whole) {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)} %`;
}

/** Plain text table: one row per style, recall for poisoned styles, flag rate for benign ones. */
export function formatResult(title, result) {
  const lines = [`${title}`, 'label     style                     n     flagged  rate'];
  for (const row of [...result.rows].sort((a, b) => a.label.localeCompare(b.label) || a.style.localeCompare(b.style))) {
    lines.push(`${row.label.padEnd(9)} ${row.style.padEnd(24)} ${String(row.total).padStart(5)} ${String(row.flagged).padStart(9)}  ${percent(row.flagged, row.total)}`);
  }
  lines.push(`poisoned recall ${percent(result.poisoned.flagged, result.poisoned.total)} (${result.poisoned.flagged}/${result.poisoned.total}); benign flagged ${percent(result.benign.flagged, result.benign.total)} (${result.benign.flagged}/${result.benign.total}); ${result.msPerDescription.toFixed(2)} ms per description`);
  return lines.join('\n');
}

/**
 * The cost as a scan pays it: the real descriptions regrouped into their servers (every tool with its description
 * and parameter texts, as one rule context), the given rules run once per server; milliseconds per text analysed.
 */
export function costPerText(realItems, core) {
  const servers = new Map();
  for (const item of realItems) {
    const tools = servers.get(item.server) ?? new Map();
    const tool = tools.get(item.tool) ?? { kind: 'tool', name: item.tool, description: '', parameters: [], location: { file: 'src/server.ts', line: 1, column: 1 }, extractor: 'corpus' };
    const parameter = /^parameters\.([^.]+)\.description$/.exec(item.field ?? 'description');
    if (parameter) tool.parameters.push({ name: parameter[1], type: 'string', required: false, description: item.text });
    else tool.description = item.text;
    tools.set(item.tool, tool);
    servers.set(item.server, tools);
  }
  let texts = 0;
  let elapsed = 0;
  for (const tools of servers.values()) {
    const list = [...tools.values()];
    const context = { mode: 'fast', workspace: { name: 'server', target: { kind: 'directory', input: '.', path: '/corpus' } }, files: [], manifests: [], tools: list, modelTexts: core.modelTexts(list), flows: [], facts: [], report: () => {} };
    texts += context.modelTexts.filter((text) => !text.field.endsWith('name')).length;
    const started = performance.now();
    for (const rule of core.rules) rule.check(context);
    elapsed += performance.now() - started;
  }
  return { servers: servers.size, texts, msPerText: elapsed / Math.max(1, texts) };
}

/** The harvested real descriptions as benign corpus items, each beside the other tools of its server. */
export function realItems(data) {
  return data.items.map((item) => ({ ...item, label: 'benign', siblings: data.servers[item.server] ?? [] }));
}
