import { SEVERITIES } from '@svc/core';
import type { Severity } from '@svc/core';
import { Text } from 'ink';
import { SEVERITY_COLOR } from './severity-color.js';

/** "2 high · 1 medium", or "no findings"; zero counts are left out so the row stays short. */
export function SeverityCounts({ counts, color }: { counts: Record<Severity, number>; color: boolean }) {
  const present = SEVERITIES.filter((severity) => counts[severity] > 0);
  if (present.length === 0) return <Text dimColor={color}>no findings</Text>;
  return (
    <Text>
      {present.map((severity, index) => (
        <Text key={severity}>
          {index > 0 ? ' · ' : ''}
          <Text color={color ? SEVERITY_COLOR[severity] : undefined}>
            {counts[severity]} {severity}
          </Text>
        </Text>
      ))}
    </Text>
  );
}
