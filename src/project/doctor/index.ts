export { doctorProject } from './doctor-project.js';
export type { DoctorReport } from './doctor-project.js';
export type { Finding, Severity } from './finding.js';
