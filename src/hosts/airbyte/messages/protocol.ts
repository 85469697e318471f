/**
 * The Airbyte protocol messages this host writes and reads, typed from the field names of the
 * published definition (airbyte_protocol.yaml of airbytehq/airbyte-protocol; the derived JSON Schema
 * the tests check every line against is protocols/airbyte/airbyte-message.schema.json). Only the
 * fields a source uses are typed; the protocol allows more.
 *
 * The protocol mixes camelCase (`connectionStatus`, `connectionSpecification`, `connectorConfig`,
 * `sourceStats`, `recordCount`) and snake_case (`emitted_at`, `json_schema`, `failure_type`): the
 * names below are the publisher's, not a style choice.
 */

export type JsonObject = Record<string, unknown>;

export interface StreamDescriptor {
  name: string;
  namespace?: string;
}

export type SyncMode = 'full_refresh' | 'incremental';
export type DestinationSyncMode = 'append' | 'overwrite' | 'append_dedup' | 'update' | 'soft_delete';

export interface AirbyteStream {
  name: string;
  json_schema: JsonObject;
  supported_sync_modes: SyncMode[];
  source_defined_cursor?: boolean;
  default_cursor_field?: string[];
  source_defined_primary_key?: string[][];
  namespace?: string;
  is_resumable?: boolean;
}

export interface AirbyteCatalog {
  streams: AirbyteStream[];
}

export interface ConfiguredAirbyteStream {
  stream: AirbyteStream;
  sync_mode: SyncMode;
  destination_sync_mode: DestinationSyncMode;
  cursor_field?: string[];
  primary_key?: string[][];
}

export interface ConfiguredAirbyteCatalog {
  streams: ConfiguredAirbyteStream[];
}

export interface AirbyteStreamState {
  stream_descriptor: StreamDescriptor;
  stream_state?: JsonObject;
}

export interface AirbyteStateMessage {
  type?: 'GLOBAL' | 'STREAM' | 'LEGACY';
  global?: { shared_state?: JsonObject; stream_states: AirbyteStreamState[] };
  stream?: AirbyteStreamState;
  /** LEGACY state (deprecated by the protocol; still read). */
  data?: JsonObject;
  sourceStats?: { recordCount?: number };
}

/** Where a stream is in a read: started, sending records, done, or stopped by a failure. */
export type StreamStatus = 'STARTED' | 'RUNNING' | 'COMPLETE' | 'INCOMPLETE';

export type LogLevel = 'FATAL' | 'ERROR' | 'WARN' | 'INFO' | 'DEBUG' | 'TRACE';
export type FailureType = 'system_error' | 'config_error' | 'transient_error';

export interface ConnectorSpecification {
  connectionSpecification: JsonObject;
  documentationUrl?: string;
  supportsIncremental?: boolean;
}

export type AirbyteMessage =
  | { type: 'SPEC'; spec: ConnectorSpecification }
  | { type: 'CONNECTION_STATUS'; connectionStatus: { status: 'SUCCEEDED' | 'FAILED'; message?: string } }
  | { type: 'CATALOG'; catalog: AirbyteCatalog }
  | { type: 'RECORD'; record: { stream: string; namespace?: string; data: JsonObject; emitted_at: number } }
  | { type: 'STATE'; state: AirbyteStateMessage }
  | { type: 'LOG'; log: { level: LogLevel; message: string; stack_trace?: string } }
  | {
      type: 'TRACE';
      trace: {
        type: 'ERROR';
        emitted_at: number;
        error: {
          message: string;
          internal_message?: string;
          stack_trace?: string;
          failure_type: FailureType;
          stream_descriptor?: StreamDescriptor;
        };
      };
    }
  | {
      type: 'TRACE';
      trace: {
        type: 'STREAM_STATUS';
        emitted_at: number;
        stream_status: { stream_descriptor: StreamDescriptor; status: StreamStatus };
      };
    }
  | {
      type: 'CONTROL';
      control: { type: 'CONNECTOR_CONFIG'; emitted_at: number; connectorConfig: { config: JsonObject } };
    };
