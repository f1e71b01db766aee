import { describe, expect, it } from 'vitest';
import { createOneTimeWatch } from '../../../harness/http/one-time-watch.ts';

const SECRET = 'whsec_abcdefghijklmnop';
const values = [{ operation: 'POST /hooks', field: 'secret', identity: ['id'] }] as const;

describe('the one-time watch', () => {
  it('finds a value returned once in a later answer or delivery, naming it without saying it', () => {
    const watch = createOneTimeWatch(values);
    watch.learn('POST /hooks', { id: 'h1', secret: SECRET }, 3);
    watch.scan({ kind: 'answer', where: 'POST /v1/hooks → 200', texts: [`{"secret":"${SECRET}"}`], seq: 3 });
    watch.scan({ kind: 'answer', where: 'GET /v1/me → 200', texts: ['{}', 'no'], seq: 4 });
    watch.scan({ kind: 'delivery', where: 'a delivery to /h', texts: ['{}', SECRET] });
    watch.scan({ kind: 'answer', where: 'GET /v1/agents → 200', texts: [`{"x":"${SECRET}"}`], seq: 5 });
    expect(watch.watched).toBe(1);
    expect(watch.scanned).toEqual({ answer: 2, delivery: 1 });
    expect(watch.sightings).toEqual([
      { kind: 'delivery', value: 'the secret of POST /hooks (exchange #3)', where: 'a delivery to /h' },
      { kind: 'answer', value: 'the secret of POST /hooks (exchange #3)', where: 'GET /v1/agents → 200' },
    ]);
    expect(JSON.stringify(watch.sightings)).not.toContain(SECRET);
  });

  it('watches only the fields returned once, of their operation, long enough not to occur by chance', () => {
    const watch = createOneTimeWatch(values);
    watch.learn('GET /me', { secret: SECRET }, 1);
    watch.learn('POST /hooks', { id: SECRET, secret: 'short' }, 2);
    expect(watch.watched).toBe(0);
    watch.scan({ kind: 'answer', where: 'x', texts: [SECRET], seq: 9 });
    expect(watch.scanned.answer).toBe(0);
    expect(watch.sightings).toEqual([]);
  });
});
