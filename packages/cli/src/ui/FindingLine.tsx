import type { Finding } from '@svc/core';
import { Box, Text } from 'ink';
import { findingWhere, SEVERITY_COLOR } from './describe.js';
import { visible } from './visible.js';

/** One finding as it arrives: severity, rule id, message, where; the evidence below it, hidden characters made visible. */
export function FindingLine({ finding, target, color }: { finding: Finding; target: string; color: boolean }) {
  const where = findingWhere(finding);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">
        <Text bold color={color ? SEVERITY_COLOR[finding.severity] : undefined}>
          {finding.severity.toUpperCase().padEnd(9)}
        </Text>
        <Text color={color ? 'cyan' : undefined}>{finding.ruleId}</Text> {visible(finding.message)}
      </Text>
      <Text dimColor={color} wrap="truncate-end">
        {'         '}
        {visible(target)}
        {where ? ` ${visible(where)}` : ''}
      </Text>
      {finding.evidence.length > 0 && (
        <Text dimColor={color} wrap="truncate-end">
          {'         › '}
          {visible(finding.evidence)}
        </Text>
      )}
    </Box>
  );
}
