import { describeWhere, visibleLine } from '@svc/core';
import type { Finding } from '@svc/core';
import { Box, Text } from 'ink';
import { SEVERITY_COLOR } from './describe.js';

/** One finding as it arrives: severity, rule id, message, where; the evidence below it, hidden characters made visible. */
export function FindingLine({ finding, target, color }: { finding: Finding; target: string; color: boolean }) {
  const where = describeWhere(finding);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color={color ? SEVERITY_COLOR[finding.severity] : undefined}>
          {finding.severity.toUpperCase().padEnd(9)}
        </Text>
        <Text color={color ? 'cyan' : undefined}>{finding.ruleId}</Text> {visibleLine(finding.message)}
      </Text>
      <Text dimColor={color} wrap="truncate-end">
        {'         '}
        {visibleLine(target)}
        {where ? ` ${visibleLine(where)}` : ''}
      </Text>
      {finding.evidence.length > 0 && (
        <Text dimColor={color} wrap="truncate-end">
          {'         › '}
          {visibleLine(finding.evidence)}
        </Text>
      )}
    </Box>
  );
}
