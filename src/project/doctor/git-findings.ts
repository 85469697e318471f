import { shown, type Finding } from './finding.js';

/**
 * configuration.json holds the credentials and `files/` the local warehouse and state: neither
 * belongs in version control. Asked of git itself (`ls-files`, `check-ignore`), so every
 * .gitignore, global excludes and `info/exclude` count as git counts them.
 */
export async function gitFindings(project: string, configuration: string, files: string): Promise<Finding[]> {
  const inRepository = await git(project, ['rev-parse', '--is-inside-work-tree']);
  if (inRepository.code !== 0 || inRepository.stdout.trim() !== 'true')
    return [
      {
        severity: 'note',
        check: 'git-not-checked',
        message: 'the project is not in a git repository (or git is not installed); version-control checks skipped',
      },
    ];

  const findings: Finding[] = [];
  const shownConfiguration = shown(project, configuration);
  if ((await git(project, ['ls-files', '--error-unmatch', '--', configuration])).code === 0)
    findings.push({
      severity: 'error',
      check: 'configuration-tracked-by-git',
      message: `${shownConfiguration} is tracked by git: its credentials are in the repository's history`,
      where: shownConfiguration,
      hint: `git rm --cached ${shownConfiguration}, add it to .gitignore, and rotate every secret it held`,
    });
  else if ((await git(project, ['check-ignore', '-q', '--', configuration])).code !== 0)
    findings.push({
      severity: 'warning',
      check: 'configuration-not-ignored',
      message: `${shownConfiguration} is not ignored by git: one 'git add .' commits its credentials`,
      where: shownConfiguration,
      hint: `add ${shownConfiguration} to .gitignore`,
    });
  // A path under files/, which need not exist yet: the rule is what matters.
  const shownFiles = `${shown(project, files)}/`;
  if ((await git(project, ['check-ignore', '-q', '--no-index', '--', `${files}/state.json`])).code !== 0)
    findings.push({
      severity: 'warning',
      check: 'files-not-ignored',
      message: `${shownFiles} (the local warehouse and state) is not ignored by git`,
      where: shownFiles,
      hint: `add ${shownFiles} to .gitignore`,
    });
  return findings;
}

function git(cwd: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    // child_process by name: this folder is loaded by every project command, git runs only in doctor.
    process
      .getBuiltinModule('node:child_process')
      .execFile('git', args, { cwd, timeout: 10_000, windowsHide: true }, (error, stdout) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout: String(stdout) });
      });
  });
}
