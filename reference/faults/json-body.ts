/** Faults of reading a POST's JSON body (../routes/json-body.ts). ../faults.ts describes each. */
import { isJsonContentType } from '../http.ts';
import { faultsAt } from '../points.ts';
import { jsonBody } from '../routes/json-body.ts';

export default faultsAt(jsonBody, {
  // What the web framework answers on its own when nobody replaced its JSON parser.
  'empty-json-body-framework-error': {
    read: (request, next) =>
      isJsonContentType(request.headers['content-type']) && String(request.body ?? '').trim() === ''
        ? {
            ok: false as const,
            answer: {
              status: 400,
              body: {
                statusCode: 400,
                code: 'FST_ERR_CTP_EMPTY_JSON_BODY',
                error: 'Bad Request',
                message: "Body cannot be empty when content-type is set to 'application/json'",
              },
            },
          }
        : next(request),
  },
  'json-content-type-exact-match': {
    read: (request, next) =>
      request.headers['content-type'] === 'application/json'
        ? next(request)
        : { ok: false as const, message: 'the body must be sent with Content-Type: application/json' },
  },
});
