// The option-value guard of the shared catalogue: a word after an option is that option's value only when the program's
// option takes one (OPTION_VALUES), decided at once for a literal argv or at the sink for a list built before its program.
import { describe, expect, it } from 'vitest';
import { argvElementGuard, listElementGuard, settleOptionValues } from './catalog.js';

describe('argv option values', () => {
  it('takes the element after an option as its value only when that option of the program takes one', () => {
    expect(argvElementGuard(['git', 'commit', '-m'], undefined)).toBe('option-value');
    expect(argvElementGuard(['kubectl', 'get', 'pods', '-n'], undefined)).toBe('option-value');
    // Switches, and options that take a value under other subcommands or before the subcommand only.
    expect(argvElementGuard(['git', 'show', '--stat'], undefined)).toBeUndefined();
    expect(argvElementGuard(['git', 'checkout', '-m'], undefined)).toBeUndefined();
    expect(argvElementGuard(['git', '-C'], undefined)).toBe('option-value');
    expect(argvElementGuard(['git', 'blame', '-C'], undefined)).toBeUndefined();
    // `git log --format X` reads X as an option: only `--format=X` holds a format.
    expect(argvElementGuard(['git', 'log', '--format'], undefined)).toBeUndefined();
    // The value of `-c` is no safe place, but the subcommand after it is found.
    expect(argvElementGuard(['git', '-c'], undefined)).toBeUndefined();
    expect(argvElementGuard(['git', '-c', 'user.name=bot', 'commit', '-m'], undefined)).toBe('option-value');
    // An option whose arity is not known here, or a program chosen at run time, proves nothing.
    expect(argvElementGuard(['rsync', '-e'], undefined)).toBeUndefined();
    expect(argvElementGuard([undefined, 'commit', '-m'], undefined)).toBeUndefined();
    expect(argvElementGuard(['git', 'log', '--end-of-options'], undefined)).toBe('end-of-options');
  });

  it('leaves the option value of a list built before its program is known to the sink that runs it', () => {
    const message = listElementGuard(['commit', '-m'], undefined)!;
    expect(settleOptionValues(['execFile-argv', message], 'git')).toEqual(['execFile-argv', 'option-value']);
    expect(settleOptionValues([message], 'kubectl')).toEqual([]);
    expect(settleOptionValues([message], undefined)).toEqual([]);
    // Pushed onto a list whose earlier words are not known: git's `-m` takes a value under some subcommands only.
    expect(settleOptionValues([listElementGuard([undefined, '-m'], undefined)!], 'git')).toEqual([]);
    expect(settleOptionValues([listElementGuard([undefined, '-n'], undefined)!], 'kubectl')).toEqual(['option-value']);
    expect(listElementGuard([undefined, '--', '-m'], undefined)).toBe('end-of-options');
  });
});
