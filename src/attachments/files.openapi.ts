import { errorExamples } from '../common/openapi/api-errors.decorator';
import { ATTACHMENT_MESSAGES } from './attachment-fields';

/** The parameters of a link path (all three come from the API's answer; clients never build them). */
const LINK_PARAMETERS = [
  { name: 'attachment_id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 }, description: 'Attachment id' },
  { name: 'expires', in: 'path', required: true, schema: { type: 'integer', minimum: 0 }, description: 'Expiry of the link, Unix seconds' },
  { name: 'signature', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' }, description: 'Signature of the link' },
];

const error = (messages: string[], headers?: object) => ({
  description: messages.join('; '),
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDto' }, examples: errorExamples(messages) } },
});

const DENIED = error([ATTACHMENT_MESSAGES.link]);

/** The headers of a download answer. */
const BYTES_HEADERS = {
  'Content-Disposition': { description: 'attachment; filename="<ASCII fallback>"; filename*=UTF-8\'\'<percent-encoded name>', schema: { type: 'string' } },
  'Content-Length': { schema: { type: 'integer' } },
  'X-Content-Type-Options': { schema: { type: 'string', const: 'nosniff' } },
  'Accept-Ranges': { schema: { type: 'string', const: 'bytes' } },
};
const BYTES = { '*/*': { schema: { type: 'string', format: 'binary' } } };

const download = (withBody: boolean) => ({
  tags: ['Attachments'],
  parameters: [
    ...LINK_PARAMETERS,
    {
      name: 'Range',
      in: 'header',
      required: false,
      schema: { type: 'string', example: 'bytes=0-1023' },
      description: 'One byte range; several ranges or a malformed value are ignored (the whole file)',
    },
  ],
  responses: {
    200: { description: 'The file', headers: BYTES_HEADERS, ...(withBody ? { content: BYTES } : {}) },
    206: {
      description: 'The requested range',
      headers: { ...BYTES_HEADERS, 'Content-Range': { schema: { type: 'string', example: 'bytes 0-1023/48213' } } },
      ...(withBody ? { content: BYTES } : {}),
    },
    403: DENIED,
    416: error([ATTACHMENT_MESSAGES.range], { 'Content-Range': { schema: { type: 'string', example: 'bytes */48213' } } }),
  },
});

/**
 * The local storage driver's links (D47), plain Fastify routes (files.routes.ts) that the
 * controller scan does not see. Their URLs come whole from the API (an upload's `upload.url`,
 * a download's `Location`); no API key.
 */
export const FILES_OPENAPI = {
  '/files/{attachment_id}/upload/{expires}/{signature}': {
    put: {
      tags: ['Attachments'],
      summary: 'Upload link (local storage)',
      description:
        'Stores exactly the declared number of bytes of a pending attachment, replacing earlier ones, until the link expires or the attachment is confirmed. No API key.',
      operationId: 'updateAttachmentBytes',
      parameters: LINK_PARAMETERS,
      requestBody: { required: false, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
      responses: {
        204: { description: 'Stored' },
        400: error([ATTACHMENT_MESSAGES.uploadSize('<file_size>')]),
        403: DENIED,
      },
    },
  },
  '/files/{attachment_id}/download/{expires}/{signature}': {
    get: {
      ...download(true),
      summary: 'Download link (local storage)',
      description: 'The bytes of a confirmed attachment while the link is valid, as an attachment, with a single byte range honoured. No API key.',
      operationId: 'getAttachmentBytes',
    },
    head: {
      ...download(false),
      summary: 'Download link headers (local storage)',
      description: 'As GET, without the body.',
      operationId: 'getAttachmentBytesHead',
    },
  },
};
