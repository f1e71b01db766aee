/** Faults of the error answers every /v1 route sends (../http.ts). ../faults.ts describes each. */
import { errors } from '../http.ts';
import { faultsAt } from '../points.ts';

const HTML_404 = '<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>';

export default faultsAt(errors, {
  'error-html-body': {
    page: (answer, next) =>
      answer.status === 404 ? { status: 404, type: 'text/html; charset=utf-8', body: HTML_404 } : next(answer),
  },
});
