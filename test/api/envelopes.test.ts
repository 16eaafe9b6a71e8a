import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  AliasErrorBody,
  ContentErrorBody,
  ERRORS,
  ErrorBody,
  endpoint,
  envelopeA,
  envelopeB,
  envelopeBFor,
  errorBody,
  rateLimitDetail,
  wrap,
  wrapB,
} from '../../src/api/index.js';

const data = z.object({ n: z.int() });

describe('envelopes', () => {
  it('A parses {success: true, data} and rejects success false or a missing data', () => {
    expect(envelopeA(data).parse({ success: true, data: { n: 1 } }).data.n).toBe(1);
    expect(envelopeA(data).safeParse({ success: false, data: { n: 1 } }).success).toBe(false);
    expect(envelopeA(data).safeParse({ success: true }).success).toBe(false);
    expect(envelopeA(data).safeParse({ code: 200, message: '200 OK', data: { n: 1 } }).success).toBe(false);
  });

  it('B parses {code, message, data} and rejects a non-integer code or an A body', () => {
    expect(envelopeB(data).parse({ code: 202, message: '202 Accepted', data: { n: 1 } }).code).toBe(202);
    expect(envelopeB(data).safeParse({ code: '200', message: '200 OK', data: { n: 1 } }).success).toBe(false);
    expect(envelopeB(data).safeParse({ success: true, data: { n: 1 } }).success).toBe(false);
  });

  it('wrapB pairs the code with its status line, and envelopeBFor checks that pairing', () => {
    const body = wrapB(201, { n: 1 });
    expect(body).toEqual({ code: 201, message: '201 Created', data: { n: 1 } });
    expect(envelopeBFor(201, data).safeParse(body).success).toBe(true);
    expect(envelopeBFor(201, data).safeParse({ ...body, message: '200 OK' }).success).toBe(false);
  });

  it('keeps unknown top-level envelope fields', () => {
    const parsed = envelopeA(data).parse({ success: true, data: { n: 1 }, request_id: 'r1' });
    expect(parsed).toHaveProperty('request_id', 'r1');
  });

  it('each catalogue entry wraps its data in the envelope it declares', () => {
    const createProject = endpoint('createProject');
    const sent = wrap(createProject.envelope, createProject.successStatus, {
      project_id: '7f3c2a7e-1b2d-4c3e-8f4a-5b6c7d8e9f01',
      status: 'initializing',
    });
    expect(sent).toMatchObject({ code: 202, message: '202 Accepted' });
    expect(createProject.response.safeParse(sent).success).toBe(true);
    expect(endpoint('listProjects').response.safeParse(wrap('A', 200, [])).success).toBe(true);
    expect(endpoint('listProjects').response.safeParse(wrap('B', 200, [])).success).toBe(false);
  });
});

describe('error bodies', () => {
  it('public errors are {detail}; alias errors add the code', () => {
    expect(ErrorBody.parse(errorBody(ERRORS.projectNotFound))).toEqual({ detail: 'Project not found' });
    expect(AliasErrorBody.parse(errorBody(ERRORS.aliasDuplicate))).toEqual({
      detail: 'Alias already exists',
      code: 'ALIAS_DUPLICATE',
    });
    expect(errorBody(ERRORS.rateLimited, rateLimitDetail(12))).toEqual({
      detail: 'Rate limit exceeded. Retry after 12 seconds.',
    });
  });

  it('content errors are {error: {code, message}} with the status of their code', () => {
    expect(ContentErrorBody.parse(errorBody(ERRORS.taskNotFound))).toEqual({
      error: { code: 'TASK_NOT_FOUND', message: 'Task not found' },
    });
    expect(ERRORS.taskNotFound.status).toBe(404);
  });

  it('marks the wording the spec gives apart from the wording this contract decided', () => {
    expect(ERRORS.missingKey.given).toBe(true);
    expect(ERRORS.promptNotFound.given).toBe(false);
  });
});
