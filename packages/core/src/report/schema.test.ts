import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type {
  ConfigOrigin,
  Finding,
  FlowStep,
  JudgeVote,
  ParseProblem,
  ScopedOutFile,
  ScanReport,
  SourceLocation,
  ToolDefinition,
  ToolParameter,
} from '../scan/model.js';
import { sampleRun } from './sample-run.js';
import {
  REPORT_SCHEMA_ID,
  reportJsonSchema,
  scanRunSchema,
  type ScanRun,
  type configOriginSchema,
  type findingSchema,
  type flowStepSchema,
  type judgeVoteSchema,
  type parseProblemSchema,
  type scopedOutFileSchema,
  type scanReportSchema,
  type sourceLocationSchema,
  type TargetFailure,
  type targetFailureSchema,
  type toolDefinitionSchema,
  type toolParameterSchema,
} from './schema.js';

// Identity, not assignability: an optional field present on one side only must fail the build.
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<_T extends true>(): void {}

assertType<Equals<z.infer<typeof sourceLocationSchema>, SourceLocation>>();
assertType<Equals<z.infer<typeof configOriginSchema>, ConfigOrigin>>();
assertType<Equals<z.infer<typeof toolParameterSchema>, ToolParameter>>();
assertType<Equals<z.infer<typeof toolDefinitionSchema>, Omit<ToolDefinition, 'handlerId'>>>();
assertType<Equals<z.infer<typeof flowStepSchema>, FlowStep>>();
assertType<Equals<z.infer<typeof judgeVoteSchema>, JudgeVote>>();
assertType<Equals<z.infer<typeof findingSchema>, Finding>>();
assertType<Equals<z.infer<typeof parseProblemSchema>, ParseProblem>>();
assertType<Equals<z.infer<typeof scopedOutFileSchema>, ScopedOutFile>>();
assertType<Equals<z.infer<typeof targetFailureSchema>, TargetFailure>>();
assertType<Equals<z.infer<typeof scanReportSchema>, ScanReport>>();
assertType<Equals<z.infer<typeof scanRunSchema>, ScanRun>>();

const schemaFile = fileURLToPath(new URL('../../schema/report.schema.json', import.meta.url));

describe('report JSON schema', () => {
  it('is the committed file (regenerate with UPDATE_SCHEMA=1 npx vitest run packages/core/src/report)', async () => {
    const generated = `${JSON.stringify(reportJsonSchema(), null, 2)}\n`;
    if (process.env.UPDATE_SCHEMA) await writeFile(schemaFile, generated);
    expect(await readFile(schemaFile, 'utf8')).toBe(generated);
  });

  it('is JSON Schema 2020-12 with a versioned $id and descriptions', () => {
    const schema = reportJsonSchema();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(REPORT_SCHEMA_ID);
    expect(JSON.stringify(schema)).toContain('"description":"Stable across runs');
  });

  it('validates a realistic run with ajv, and rejects a broken one', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const validate = ajv.compile(reportJsonSchema());
    const run = sampleRun();
    expect(validate(run), ajv.errorsText(validate.errors)).toBe(true);

    const broken = structuredClone(run) as unknown as { reports: Array<{ findings: Array<Record<string, unknown>> }> };
    broken.reports[0]!.findings[0]!.severity = 'catastrophic';
    delete broken.reports[0]!.findings[1]!.ruleId;
    expect(validate(broken)).toBe(false);
    expect(ajv.errorsText(validate.errors)).toMatch(/severity|ruleId/);
  });

  it('leaves objects open so later minor versions still validate', () => {
    const validate = new Ajv2020({ strict: true }).compile(reportJsonSchema());
    const run = sampleRun() as ScanRun & { addedLater?: string };
    run.addedLater = 'x';
    expect(validate(run)).toBe(true);
  });

  it('parses a realistic run with zod and rejects unknown fields at runtime', () => {
    const run = sampleRun();
    expect(scanRunSchema.parse(run)).toEqual(run);
    const extra = { ...run, reports: [{ ...run.reports[0]!, surprise: true }] };
    expect(scanRunSchema.safeParse(extra).success).toBe(false);
  });
});
