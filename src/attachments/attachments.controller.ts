import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { Caller, CurrentCaller } from '../common/auth/auth-context';
import { Authenticated, BodyErrors } from '../common/auth/authenticated.decorator';
import { BODY_TOO_LARGE_MESSAGE } from '../common/errors/to-http-error';
import { RawJson } from '../common/http/raw-json';
import { streamedBody, streamedBodyRoute } from '../common/http/streamed-body';
import { ApiErrors } from '../common/openapi/api-errors.decorator';
import { BODY_400_MESSAGES, deferredBodyError } from '../common/validation/body-error';
import { PathId } from '../common/validation/path-id';
import { AttachmentDto } from '../tasks/tasks.dto';
import { ATTACHMENT_MESSAGES, tooLargeMessage } from './attachment-fields';
import { DeclareAttachmentDto, DeclaredAttachmentDto, MultipartAttachmentDto } from './attachments.dto';
import { AttachmentsService, DeclaredUpload } from './attachments.service';
import { MULTIPART_MESSAGES, type MultipartResult, UPLOAD_READER } from './multipart';

/** D7's 413, which applies to confirm although its body is never read. */
const PAYLOAD_TOO_LARGE = BODY_TOO_LARGE_MESSAGE;

/** HTTP for attachments (D39, D47): upload, list, confirm, download, delete. */
@ApiTags('Attachments')
@ApiExtraModels(DeclareAttachmentDto, MultipartAttachmentDto)
@Controller('api/v1')
export class AttachmentsController {
  constructor(private readonly attachments: AttachmentsService) {}

  /** D47: upload attachment (multipart, or a JSON declaration with an upload link). */
  @Post('tasks/:task_id/attachments')
  @Authenticated('attachments:write', 'attachment.upload')
  @RouteConfig(streamedBodyRoute(UPLOAD_READER))
  @BodyErrors('route')
  @ApiOperation({
    summary: 'Upload attachment',
    description:
      'Two forms, by Content-Type. `multipart/form-data`: one part named `file` with a file name; the file is stored and the attachment is confirmed at once (201: the attachment). ' +
      '`application/json` `{file_name, file_size, mime_type}`: declares an attachment (201: the pending attachment and an upload link); PUT exactly `file_size` bytes to the link, then confirm the attachment. ' +
      'A pending attachment appears nowhere until confirmed and is gone once its link expires.',
  })
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody({ schema: { oneOf: [{ $ref: getSchemaPath(MultipartAttachmentDto) }, { $ref: getSchemaPath(DeclareAttachmentDto) }] } })
  @ApiCreatedResponse({
    description: 'Multipart: the attachment. JSON: the pending attachment and its upload link.',
    schema: { oneOf: [{ $ref: getSchemaPath(AttachmentDto) }, { $ref: getSchemaPath(DeclaredAttachmentDto) }] },
  })
  @ApiExtraModels(AttachmentDto, DeclaredAttachmentDto)
  @ApiErrors({
    400: [
      ...BODY_400_MESSAGES,
      MULTIPART_MESSAGES.invalid,
      MULTIPART_MESSAGES.fileRequired,
      MULTIPART_MESSAGES.oneFile,
      ATTACHMENT_MESSAGES.fileNameRequired,
      ATTACHMENT_MESSAGES.fileName,
      ATTACHMENT_MESSAGES.fileSize,
      ATTACHMENT_MESSAGES.mimeType,
    ],
    413: [tooLargeMessage('<limit>'), ATTACHMENT_MESSAGES.quota],
    415: [ATTACHMENT_MESSAGES.contentType],
  })
  createAttachment(
    @CurrentCaller() caller: Caller,
    @PathId('task') id: number,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ): Promise<RawJson<AttachmentDto> | DeclaredUpload> {
    return this.attachments.upload(caller, id, {
      contentType: request.headers['content-type'],
      body,
      bodyError: deferredBodyError(request),
      contentLength: request.headers['content-length'] === undefined ? undefined : Number(request.headers['content-length']),
      stream: () => streamedBody<MultipartResult>(request),
      request,
    });
  }

  /** D47: list attachments. */
  @Get('tasks/:task_id/attachments')
  @Authenticated('attachments:read', 'attachment.list')
  @ApiOperation({ summary: 'List attachments', description: 'The confirmed attachments of a task, oldest first (created_at, then id). No paging.' })
  @ApiOkResponse({ type: [AttachmentDto] })
  listAttachments(@CurrentCaller() caller: Caller, @PathId('task') id: number): Promise<RawJson<AttachmentDto[]>> {
    return this.attachments.list(caller, id);
  }

  /** D47: confirm attachment. */
  @Post('attachments/:attachment_id/confirm')
  @HttpCode(200)
  @Authenticated('attachments:write', 'attachment.confirm')
  @BodyErrors('route')
  @ApiOperation({
    summary: 'Confirm attachment',
    description:
      'Makes a declared attachment visible once exactly `file_size` bytes were uploaded to its link; a confirmed attachment answers again unchanged. Any body is ignored.',
  })
  @ApiOkResponse({ type: AttachmentDto })
  @ApiErrors({ 409: [ATTACHMENT_MESSAGES.incomplete], 413: [PAYLOAD_TOO_LARGE] })
  createAttachmentConfirmation(@CurrentCaller() caller: Caller, @PathId('attachment') id: number): Promise<RawJson<AttachmentDto>> {
    return this.attachments.confirm(caller, id);
  }

  /** D47: download attachment (a redirect to a short-lived link). */
  @Get('attachments/:attachment_id/download')
  @Authenticated('attachments:read', 'attachment.download')
  @ApiOperation({
    summary: 'Download attachment',
    description:
      "Redirects to a short-lived absolute URL that needs no API key and answers the bytes with `Content-Disposition: attachment` and the attachment's type (active types such as HTML and SVG as `application/octet-stream`).",
  })
  @ApiResponse({
    status: 302,
    description: 'Empty body; `Location` is the download link',
    headers: { Location: { description: 'Absolute URL of the bytes, valid for a few minutes', schema: { type: 'string', format: 'uri' } } },
  })
  async getAttachmentDownload(@CurrentCaller() caller: Caller, @PathId('attachment') id: number, @Res() reply: FastifyReply): Promise<void> {
    const url = await this.attachments.downloadUrl(caller, id);
    await reply.code(302).header('location', url).send();
  }

  /** D47: delete attachment. */
  @Delete('attachments/:attachment_id')
  @HttpCode(204)
  @Authenticated('attachments:write', 'attachment.delete')
  @ApiOperation({ summary: 'Delete attachment', description: 'Permanent, pending or confirmed; the bytes are removed shortly after.' })
  @ApiNoContentResponse()
  deleteAttachment(@CurrentCaller() caller: Caller, @PathId('attachment') id: number): Promise<void> {
    return this.attachments.delete(caller, id);
  }
}
