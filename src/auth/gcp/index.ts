// The Google family's door. Nothing here is used outside gcp/: its two methods
// (service_account_key, gcp_workload_identity) load through ../built-in-methods.ts, one file each.
export {};
