import { doctorProject, type Finding } from '../../../project/index.js';
import type { CliIO, Command } from '../../cli-io.js';
import { PROJECT_OPTIONS, parseCommandArgs, projectLocation } from '../../parse-command-args.js';

const HELP = `Usage: connector-auth doctor [project] [--configuration FILE] [--json]

Checks the project's credential hygiene, offline: the configuration is valid and not tracked or
unignored by git, files holding credentials are not readable by other users, no secret of the
configuration appears in any other file of the project or in files/state.json, verification is not
turned off, and the credential is not past its rotation age.

Exit codes: 0 nothing to fix (warnings and notes may remain) · 2 at least one error`;

const command: Command = {
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('doctor', {
      args,
      allowPositionals: true,
      options: PROJECT_OPTIONS,
    });
    if (values.help) return (io.out(HELP), 0);
    const report = await doctorProject({
      ...projectLocation(positionals, values),
    });
    if (io.json)
      io.out(
        JSON.stringify({
          ok: report.healthy,
          project: report.project,
          configuration: report.configuration,
          findings: report.findings,
        }),
      );
    else io.out(humanReport(report.project, report.findings));
    return report.healthy ? 0 : 2;
  },
};
export default command;

function humanReport(project: string, findings: Finding[]): string {
  const count = (severity: Finding['severity'], noun: string) => {
    const n = findings.filter((f) => f.severity === severity).length;
    return n === 0 ? [] : [`${n} ${noun}${n === 1 ? '' : 's'}`];
  };
  const summary = [...count('error', 'error'), ...count('warning', 'warning'), ...count('note', 'note')];
  const lines = findings.map((f) => `${f.severity.padEnd(7)}  ${f.message}${f.hint ? `\n         → ${f.hint}` : ''}`);
  return [...lines, `doctor: ${summary.length ? summary.join(', ') : 'nothing to fix'} in ${project}`].join('\n');
}
