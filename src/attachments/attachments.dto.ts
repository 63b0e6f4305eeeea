import { ApiProperty } from '@nestjs/swagger';

import { ApiInteger } from '../common/openapi/integer.decorator';
import { AttachmentDto } from '../tasks/tasks.dto';

/** D47: the JSON form of an upload: a declaration, whose bytes go to the upload link. */
export class DeclareAttachmentDto {
  @ApiProperty({ description: 'File name; the text after the last `/` or `\\`, control characters removed, trimmed: 1-255 characters', example: 'report.pdf' })
  file_name: string;
  @ApiInteger({ description: "Exact size of the file in bytes (at most the service's attachment limit)", minimum: 0, example: 48213 })
  file_size: number;
  @ApiProperty({ description: 'MIME type `type/subtype`, stored lower-cased without parameters', maxLength: 255, example: 'application/pdf' })
  mime_type: string;
}

/** D47: the multipart form of an upload. */
export class MultipartAttachmentDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description: "The file: one part named `file` with a `filename` (or `filename*`); its Content-Type is the attachment's `mime_type`",
  })
  file: string;
}

/** D47: where and how to send a declared attachment's bytes. */
export class UploadLinkDto {
  @ApiProperty({ enum: ['PUT'] }) method: 'PUT';
  @ApiProperty({ description: 'Absolute URL; needs no API key', example: 'http://localhost:3000/files/9/upload/1767225600/xxxxxxxx' }) url: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, description: 'Headers to send with the bytes' }) headers: Record<string, string>;
  @ApiProperty({ format: 'date-time', description: 'The link accepts the bytes until then; the attachment must be confirmed before it too' })
  expires_at: string;
}

/** D47: the answer to a declaration: the pending attachment and its upload link. */
export class DeclaredAttachmentDto {
  @ApiProperty({ type: AttachmentDto }) attachment: AttachmentDto;
  @ApiProperty({ type: UploadLinkDto }) upload: UploadLinkDto;
}
