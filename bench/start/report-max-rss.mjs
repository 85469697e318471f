// Preloaded by bench/start/debug-template.ts (`node --import`): writes the process's peak RSS (KiB) to
// $REPORT_MAX_RSS_FILE when it exits, so a child's peak is read without a platform's `time`.
import { writeFileSync } from 'node:fs';

process.once('exit', () => {
  if (process.env.REPORT_MAX_RSS_FILE)
    writeFileSync(process.env.REPORT_MAX_RSS_FILE, String(process.resourceUsage().maxRSS));
});
