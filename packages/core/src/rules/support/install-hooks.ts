// What npm runs on `npm install` of a package: read by the install-script rule and by the typosquat signals.

/** Lifecycle scripts npm runs on `npm install` of the package (prepare also for git dependencies). */
export const INSTALL_HOOKS = ['preinstall', 'install', 'postinstall', 'prepare', 'prepublish', 'preprepare', 'postprepare'] as const;

/** The install hooks a package.json declares, as `hook: command`. */
export function installHooksOf(data: unknown): string[] {
  const scripts = (data as { scripts?: Record<string, unknown> } | null)?.scripts;
  if (!scripts || typeof scripts !== 'object') return [];
  return INSTALL_HOOKS.flatMap((hook) => (typeof scripts[hook] === 'string' ? [`${hook}: ${scripts[hook] as string}`] : []));
}
