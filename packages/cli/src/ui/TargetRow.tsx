import { visibleLine } from '@svc/core';
import { Box, Text } from 'ink';
import { SeverityCounts } from './SeverityCounts.js';
import { Spinner } from './Spinner.js';
import type { TargetProgress } from './progress-state.js';

export function TargetRow({ row, color }: { row: TargetProgress; color: boolean }) {
  const tint = (name: string) => (color ? name : undefined);
  let status;
  if (row.status === 'running') {
    const files = row.files ? ` ${row.files.done}/${row.files.total} files` : '';
    status = <Text>{`${row.stage ?? 'starting'}${files}`}</Text>;
  } else if (row.status === 'failed') {
    // The reason is printed once when the scan ends (the text report's Errors, else `svc: <target>: <reason>`).
    status = <Text color={tint('red')}>failed</Text>;
  } else if (row.result?.coverage.status === 'not-scanned') {
    status = <Text color={tint('yellow')}>not scanned: {visibleLine(row.result.coverage.reasons.join('; '))}</Text>;
  } else {
    const partial = row.result?.coverage.status === 'partial' ? row.result.coverage.reasons.length : 0;
    status = (
      <Text>
        {`done ${row.result?.files ?? 0} files, score ${row.result?.score ?? '?'} (${row.result?.grade ?? '?'})`}
        {partial > 0 && <Text color={tint('yellow')}>{` partial: ${partial} gap${partial === 1 ? '' : 's'}, see the report`}</Text>}
      </Text>
    );
  }
  return (
    <Box gap={1}>
      {row.status === 'running' ? (
        <Spinner color={tint('cyan')} />
      ) : row.status === 'failed' ? (
        <Text color={tint('red')}>✖</Text>
      ) : row.result?.coverage.status === 'scanned' ? (
        <Text color={tint('green')}>✔</Text>
      ) : (
        <Text color={tint('yellow')}>!</Text>
      )}
      <Text bold>{visibleLine(row.target)}</Text>
      {status}
      {row.status !== 'failed' && (
        <>
          <Text dimColor={color}>│</Text>
          <SeverityCounts counts={row.counts} color={color} />
        </>
      )}
    </Box>
  );
}
