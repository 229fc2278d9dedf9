/** A file to upload: a Blob/File from the browser, with an optional name. */
export type UploadFile = Blob | { blob: Blob; filename: string };

/**
 * Builds the multipart body of an upload operation. File fields take arrays of Blobs/Files; other
 * fields are sent as text. The generated types describe files as strings, hence the cast at the call:
 * `api.POST('/trade/transports/upload', { body: toFormData({ files, transportId: 12, documentType: 'INSURANCE' }) as never })`.
 */
export function toFormData(fields: Record<string, UploadFile | UploadFile[] | string | number | boolean | null | undefined>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item instanceof Blob) form.append(name, item, item instanceof File ? item.name : 'file');
      else if (typeof item === 'object') form.append(name, item.blob, item.filename);
      else form.append(name, String(item));
    }
  }
  return form;
}
