import * as loader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_DIR } from './support.js';

/**
 * Our protocols/fivetran/*.proto against the facts of the upstream v2 files (fivetran/fivetran_partner_sdk,
 * common.proto and connector_sdk.proto at 3037ce4e, read field by field): every message's fields
 * with their numbers and types, every enum's values, the service's methods. A difference here is a
 * difference on the wire.
 */

const UPSTREAM: Record<string, string> = {
  ConfigurationFormRequest: '',
  ConfigurationFormResponse:
    'schema_selection_supported=1:bool table_selection_supported=2:bool fields=3:FormField tests=4:ConfigurationTest',
  FormField:
    'name=1:string label=2:string required=3:bool description=4:string text_field=5:TextField dropdown_field=6:DropdownField toggle_field=7:ToggleField conditional_fields=10:ConditionalFields upload_field=11:UploadField descriptive_dropdown_fields=12:DescriptiveDropDownFields default_value=8:string placeholder=9:string',
  UploadField: 'allowed_file_type=1:string max_file_size_bytes=2:int32',
  DescriptiveDropDownFields: 'descriptive_dropdown_field=1:DescriptiveDropDownField',
  DescriptiveDropDownField: 'value=1:string label=2:string description=3:string',
  ConditionalFields: 'condition=1:VisibilityCondition fields=2:FormField',
  VisibilityCondition: 'condition_field=1:string bool_value=2:bool string_value=3:string empty_value=4:bool',
  DropdownField: 'dropdown_field=1:string',
  ToggleField: '',
  TextField: 'PlainText=0 Password=1 Hidden=2',
  ConfigurationTest: 'name=1:string label=2:string',
  TestRequest: 'name=1:string configuration=2:map<string, string>',
  TestResponse: 'success=1:bool failure=2:string',
  SchemaList: 'schemas=1:Schema',
  TableList: 'tables=1:Table',
  Schema: 'name=1:string tables=2:Table',
  DataType:
    'UNSPECIFIED=0 BOOLEAN=1 SHORT=2 INT=3 LONG=4 DECIMAL=5 FLOAT=6 DOUBLE=7 NAIVE_DATE=8 NAIVE_DATETIME=9 UTC_DATETIME=10 BINARY=11 XML=12 STRING=13 JSON=14 NAIVE_TIME=15',
  DataTypeParams: 'decimal=1:DecimalParams string_byte_length=2:int32',
  DecimalParams: 'precision=1:uint32 scale=2:uint32',
  RecordType: 'UPSERT=0 UPDATE=1 DELETE=2 TRUNCATE=3',
  ValueType:
    'null=1:bool bool=2:bool short=3:int32 int=4:int32 long=5:int64 float=6:float double=7:double naive_date=8:Timestamp naive_datetime=9:Timestamp utc_datetime=10:Timestamp decimal=11:string binary=12:bytes string=13:string json=14:string xml=15:string naive_time=16:Timestamp',
  Table: 'name=1:string columns=2:Column',
  Column: 'name=1:string type=2:DataType primary_key=3:bool params=4:DataTypeParams',
  Warning: 'message=1:string',
  Task: 'message=1:string',
  SchemaRequest: 'configuration=1:map<string, string>',
  SchemaResponse:
    'schema_response_not_supported=1:bool with_schema=2:SchemaList without_schema=3:TableList selection_not_supported=4:bool',
  UpdateRequest: 'configuration=1:map<string, string> selection=2:Selection state_json=3:string',
  Selection: 'without_schema=1:TablesWithNoSchema with_schema=2:TablesWithSchema',
  TablesWithNoSchema: 'tables=1:TableSelection include_new_tables=2:bool',
  TablesWithSchema: 'schemas=1:SchemaSelection include_new_schemas=2:bool',
  SchemaSelection: 'included=1:bool schema_name=2:string tables=3:TableSelection include_new_tables=4:bool',
  TableSelection: 'included=1:bool table_name=2:string columns=3:map<string, bool> include_new_columns=4:bool',
  UpdateResponse:
    'record=1:Record schema_change=2:SchemaChange checkpoint=3:Checkpoint warning=4:Warning task=5:Task records=6:Records',
  SchemaChange: 'with_schema=1:SchemaList without_schema=2:TableList',
  Records: 'records=1:Record',
  Record: 'schema_name=1:string table_name=2:string type=3:RecordType data=4:map<string, ValueType>',
  Checkpoint: 'state_json=1:string',
};

interface Field {
  name: string;
  number: number;
  type: string;
  typeName: string;
}
interface Descriptor {
  field?: Field[];
  value?: { name: string; number: number }[];
  nestedType?: (Descriptor & { name: string; options?: { mapEntry?: boolean } })[];
}

const short = (typeName: string) => typeName.split('.').at(-1)!;
const scalar = (type: string) => type.replace(/^TYPE_/, '').toLowerCase();

function shapeOf(descriptor: Descriptor): string {
  if (descriptor.value) return descriptor.value.map((v) => `${v.name}=${v.number}`).join(' ');
  return (descriptor.field ?? [])
    .map((f) => {
      const entry = descriptor.nestedType?.find((n) => n.options?.mapEntry && n.name === short(f.typeName));
      const type = entry
        ? `map<${entry.field!.map((e) => (e.typeName ? short(e.typeName) : scalar(e.type))).join(', ')}>`
        : f.typeName
          ? short(f.typeName)
          : scalar(f.type);
      return `${f.name}=${f.number}:${type}`;
    })
    .join(' ');
}

describe('protocols/fivetran', () => {
  const definition = loader.loadSync('connector_sdk.proto', { includeDirs: [PROTOCOL_DIR], keepCase: true });

  it('every message and enum of the upstream v2 files, field for field', () => {
    const ours = Object.fromEntries(
      Object.entries(definition)
        .filter(([name]) => name.startsWith('fivetran_sdk.v2.') && name !== 'fivetran_sdk.v2.SourceConnector')
        .map(([name, value]) => [short(name), shapeOf((value as { type: Descriptor }).type)]),
    );
    expect(ours).toEqual(UPSTREAM);
  });

  it('the service SourceConnector: four calls, Update a server stream', () => {
    const service = definition['fivetran_sdk.v2.SourceConnector'] as Record<
      string,
      { path: string; requestStream: boolean; responseStream: boolean }
    >;
    expect(Object.values(service).map((m) => [m.path, m.requestStream, m.responseStream])).toEqual([
      ['/fivetran_sdk.v2.SourceConnector/ConfigurationForm', false, false],
      ['/fivetran_sdk.v2.SourceConnector/Test', false, false],
      ['/fivetran_sdk.v2.SourceConnector/Schema', false, false],
      ['/fivetran_sdk.v2.SourceConnector/Update', false, true],
    ]);
  });
});
