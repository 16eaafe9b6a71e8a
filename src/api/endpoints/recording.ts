/** Recorded URLs of a project. Envelope B. Recording a URL does not create a prompt. */
import { defineEndpoint } from '../endpoint.js';
import { ERRORS } from '../errors.js';
import { ProjectParams } from '../schemas/common.js';
import { RecordedUrlList, RecordingAddBody, RecordingChangeResult, RecordingRemoveBody } from '../schemas/recording.js';

const base = {
  service: 'public',
  tag: 'recording',
  path: '/projects/{project_id}/recording',
  params: ProjectParams,
  envelope: 'B',
} as const;

export const recordingEndpoints = {
  listRecordedUrls: defineEndpoint({
    ...base,
    id: 'listRecordedUrls',
    method: 'GET',
    summary: 'URLs recorded for the project.',
    data: RecordedUrlList,
  }),
  recordUrls: defineEndpoint({
    ...base,
    id: 'recordUrls',
    method: 'POST',
    summary: 'Record 1-50 URLs (titles fetched in the background when omitted).',
    body: RecordingAddBody,
    data: RecordingChangeResult,
    errors: [ERRORS.recordingInvalid],
  }),
  removeRecordedUrls: defineEndpoint({
    ...base,
    id: 'removeRecordedUrls',
    method: 'DELETE',
    summary: 'Stop recording URLs (JSON body); prompts and analytics are kept.',
    body: RecordingRemoveBody,
    data: RecordingChangeResult,
    errors: [ERRORS.recordingInvalid],
  }),
} as const;
