import { describeWhere, visibleLine } from '@svc/core';
import type { Finding } from '@svc/core';
import { Box, Text } from 'ink';
import { SEVERITY_COLOR } from './severity-color.js';

// Severity labels are padded to this width so the lines below a finding align with its rule id.
const LABEL_WIDTH = 'CRITICAL '.length;
const INDENT = ' '.repeat(LABEL_WIDTH);

/** One finding as it arrives: severity, rule id, message, where; the evidence below it, hidden characters made visible. */
export function FindingLine({ finding, target, color }: { finding: Finding; target: string; color: boolean }) {
  const where = describeWhere(finding);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color={color ? SEVERITY_COLOR[finding.severity] : undefined}>
          {finding.severity.toUpperCase().padEnd(LABEL_WIDTH)}
        </Text>
        <Text color={color ? 'cyan' : undefined}>{finding.ruleId}</Text> {visibleLine(finding.message)}
      </Text>
      <Text dimColor={color} wrap="truncate-end">
        {INDENT}
        {visibleLine(target)}
        {where ? ` ${visibleLine(where)}` : ''}
      </Text>
      {finding.evidence.length > 0 && (
        <Text dimColor={color} wrap="truncate-end">
          {`${INDENT}› `}
          {visibleLine(finding.evidence)}
        </Text>
      )}
    </Box>
  );
}
