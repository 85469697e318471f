/**
 * A JSON file's text without its byte order mark. Windows editors (Notepad, PowerShell's Out-File)
 * start UTF-8 files with one, which `readFile` keeps as U+FEFF and `JSON.parse` refuses. It is not
 * content: every file a command reads as JSON (configuration.json, Airbyte's --config, --catalog
 * and --state, the state file, the emulator's data) drops it, so the file parses and error
 * positions count columns as the editor shows them.
 */
export function withoutByteOrderMark(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}
