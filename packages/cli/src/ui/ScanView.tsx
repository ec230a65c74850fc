import { Box, Static, Text } from 'ink';
import { FindingLine } from './FindingLine.js';
import type { ProgressState } from './progress-state.js';
import { TargetRow } from './TargetRow.js';

/**
 * The live view of `svc scan` on a terminal: findings scroll above as they arrive (Static prints each once), and one
 * row per target below keeps its stage, file counter and severity tally up to date.
 */
export function ScanView({ state, inputs, color }: { state: ProgressState; inputs: number; color: boolean }) {
  return (
    <Box flexDirection="column">
      <Static items={state.findings}>
        {(item) => <FindingLine key={item.key} finding={item.finding} target={item.target} color={color} />}
      </Static>
      {state.targets.length === 0 ? (
        <Text dimColor={color}>{`Scanning ${inputs} target${inputs === 1 ? '' : 's'}…`}</Text>
      ) : (
        state.targets.map((row) => <TargetRow key={row.target} row={row} color={color} />)
      )}
    </Box>
  );
}
