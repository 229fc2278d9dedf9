/** A file to upload: a Blob/File, or a Blob with the file name to send. */
export type UploadFile = Blob | { blob: Blob; filename: string };
type Field = UploadFile | UploadFile[] | string | number | boolean | null | undefined;

/**
 * Builds a multipart body. The client does this by itself for upload operations given a plain
 * object (`body: { files: [file], transportId: 12, documentType: 'INSURANCE' }`); use it to
 * build a body by hand. File fields take arrays of Blobs/Files; other fields are sent as text.
 */
export function toFormData(fields: Record<string, Field> | object): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields as Record<string, Field>)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item instanceof Blob) form.append(name, item, typeof File !== 'undefined' && item instanceof File ? item.name : 'file');
      else if (typeof item === 'object') form.append(name, item.blob, item.filename);
      else form.append(name, String(item));
    }
  }
  return form;
}
