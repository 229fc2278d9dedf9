import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { listOperations, loadContract, type OperationObject } from '../../src/contract.js';
import type { OperationId } from '../../src/http/handlers.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;

const doc = loadContract();
const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: false });
addFormats(ajv);
ajv.addFormat('binary', true);
ajv.addSchema(doc as object, 'contract');

/** A node of the contract with its `$ref`s followed (to the end of a chain); `{}` for none. */
export function deref(node: Record<string, any> | undefined): Record<string, any> {
  let n = node ?? {};
  while (typeof n.$ref === 'string')
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce(
        (o: Record<string, any>, key: string) => o[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        doc as unknown as Record<string, any>,
      );
  return n;
}

export interface OperationInfo {
  operationId: OperationId;
  method: string;
  path: string;
  operation: OperationObject & { responses: Record<string, { $ref?: string; content?: Record<string, unknown> }> };
}

export const operations: OperationInfo[] = listOperations(doc).map(({ method, path, operation }) => ({
  operationId: operation.operationId,
  method: method.toUpperCase(),
  path,
  operation: operation as OperationInfo['operation'],
}));
export const operationById = new Map(operations.map((o) => [o.operationId, o]));

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const validators = new Map<string, ValidateFunction | null>();

/** The validator of an operation's response for a status and content type, or null if the contract declares none. */
export function responseValidator(operationId: OperationId, status: number, contentType = 'application/json'): ValidateFunction | null {
  const key = `${operationId} ${status} ${contentType}`;
  if (validators.has(key)) return validators.get(key)!;
  const info = operationById.get(operationId);
  if (!info) throw new Error(`unknown operation ${operationId}`);
  let response = info.operation.responses[String(status)];
  let base = pointer('paths', info.path, info.method.toLowerCase(), 'responses', String(status));
  if (response?.$ref) {
    base = response.$ref.slice(2);
    const name = response.$ref.split('/').pop()!;
    response = (doc.components as unknown as { responses: Record<string, typeof response> }).responses[name];
  }
  const media = response?.content?.[contentType];
  // A response declared without content (304) matches an answer without a content type (and no body: checked by the caller).
  const bodiless = response !== undefined && response.content === undefined && contentType === '';
  const validate = media
    ? ajv.compile({ $ref: `contract#/${base}/content/${pointer(contentType)}/schema` })
    : bodiless
      ? (Object.assign(() => true, { errors: null }) as unknown as ValidateFunction)
      : null;
  validators.set(key, validate);
  return validate;
}

/** The JSON examples of an operation's response for a status, by name (followed through `$ref`s). */
export function responseExamples(operationId: OperationId, status: number): Record<string, Record<string, any>> {
  const response = deref(operationById.get(operationId)?.operation.responses[String(status)] as Record<string, any> | undefined);
  const examples = (response.content?.['application/json']?.examples ?? {}) as Record<string, Record<string, any>>;
  return Object.fromEntries(Object.entries(examples).map(([name, example]) => [name, deref(example).value]));
}

/** The query parameters the contract gives these operations (shared ones followed through `$ref`s), each once. */
export function queryParameterNames(operationIds: OperationId[]): string[] {
  const names = operationIds.flatMap((id) => {
    const info = operationById.get(id);
    if (!info) throw new Error(`unknown operation ${id}`);
    return ((info.operation.parameters ?? []) as Array<Record<string, any>>)
      .map(deref)
      .filter((p) => p.in === 'query')
      .map((p) => p.name as string);
  });
  return [...new Set(names)];
}

/** The validator of a component schema of the contract (`ErrorEnvelope`, ...). */
export function componentValidator(name: string): ValidateFunction {
  const ref = `contract#/components/schemas/${name}`;
  return ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
}

/** The validator of the body the server POSTs for a webhook event type (the contract's `webhooks` section). */
export function webhookValidator(eventType: string): ValidateFunction {
  if (!(doc as unknown as { webhooks?: Record<string, unknown> }).webhooks?.[eventType])
    throw new Error(`no webhook ${eventType} in the contract`);
  return ajv.compile({ $ref: `contract#/webhooks/${pointer(eventType)}/post/requestBody/content/application~1json/schema` });
}

/** The event types of the contract's `webhooks` section. */
export const webhookEventTypes = Object.keys((doc as unknown as { webhooks?: Record<string, unknown> }).webhooks ?? {});
